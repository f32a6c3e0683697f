// An EventSource for the front end's own tests (vi.stubGlobal('EventSource', FakeEventSource)).

/** An EventSource the test drives: it records the URLs opened and delivers events by name. */
export class FakeEventSource {
  static CONNECTING = 0
  static OPEN = 1
  static CLOSED = 2
  static opened: FakeEventSource[] = []
  readyState = FakeEventSource.CONNECTING
  onopen: (() => void) | null = null
  onerror: (() => void) | null = null
  private listeners = new Map<string, ((e: MessageEvent<string>) => void)[]>()

  constructor(readonly url: string) {
    FakeEventSource.opened.push(this)
  }

  addEventListener(type: string, listener: (e: MessageEvent<string>) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener])
  }

  close() {
    this.readyState = FakeEventSource.CLOSED
  }

  connect() {
    this.readyState = FakeEventSource.OPEN
    this.onopen?.()
  }

  emit(type: string, id: string, data: unknown) {
    const event = new MessageEvent(type, { data: JSON.stringify(data), lastEventId: id })
    for (const listener of this.listeners.get(type) ?? []) listener(event)
  }

  /** The server went away for good: the browser gives up (CLOSED) and reports an error. */
  fail() {
    this.readyState = FakeEventSource.CLOSED
    this.onerror?.()
  }
}
