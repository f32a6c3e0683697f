import { useEffect, useState } from 'react'

/** False until `ready` is true and the browser has painted once since: a section below the fold (the
 * probe charts) then renders in a task of its own after that frame, instead of in the same stretch of
 * main thread as the charts on screen (bench/open_large_run.py: ~0.1 s for 16 probe lines). */
export function useAfterPaint(ready: boolean): boolean {
  const [painted, setPainted] = useState(false)
  useEffect(() => {
    if (!ready || painted) return
    let timer = 0
    // the frame's callback runs before its paint; the timeout it queues runs after
    const frame = requestAnimationFrame(() => {
      timer = window.setTimeout(() => setPainted(true), 0)
    })
    return () => {
      cancelAnimationFrame(frame)
      window.clearTimeout(timer)
    }
  }, [ready, painted])
  return ready && painted
}
