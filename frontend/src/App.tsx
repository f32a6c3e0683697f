import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'
import { Link, NavLink, Route, Routes, useLocation } from 'react-router-dom'
import { api } from './api/client'
import { ComparePage } from './pages/ComparePage/ComparePage'
import { DatasetsPage } from './pages/DatasetsPage/DatasetsPage'
import { LoginPage } from './pages/LoginPage/LoginPage'
import { NewRunPage } from './pages/NewRunPage/NewRunPage'
import { ReplayPage } from './pages/ReplayPage/ReplayPage'
import { ReplaysPage } from './pages/ReplayPage/ReplaysPage'
import { RunPage } from './pages/RunPage/RunPage'
import { RunsPage } from './pages/RunsPage/RunsPage'
import { WorkloadPage } from './pages/WorkloadPage/WorkloadPage'
import { SharePage } from './pages/SharePage/SharePage'
import { TargetPage } from './pages/TargetPage/TargetPage'
import { TargetsPage } from './pages/TargetsPage/TargetsPage'

function NotFound() {
  return (
    <div className="page">
      <h1>Not found</h1>
      <p>
        Nothing here. Go to the <NavLink to="/runs">runs list</NavLink>.
      </p>
    </div>
  )
}

export function App() {
  const { pathname } = useLocation()
  if (pathname.startsWith('/share/')) {
    // Share links open without signing in.
    return (
      <main>
        <Routes>
          <Route path="/share/:token" element={<SharePage />} />
        </Routes>
      </main>
    )
  }
  return <SignedInApp pathname={pathname} />
}

function SignedInApp({ pathname }: { pathname: string }) {
  const queryClient = useQueryClient()
  const me = useQuery({ queryKey: ['me'], queryFn: api.me, retry: false })
  useEffect(() => {
    const onUnauthorized = () => void queryClient.invalidateQueries({ queryKey: ['me'] })
    window.addEventListener('upgradelab:unauthorized', onUnauthorized)
    return () => window.removeEventListener('upgradelab:unauthorized', onUnauthorized)
  }, [queryClient])
  if (me.isPending) return <p className="muted page">Loading…</p>
  if (!me.data) return <LoginPage />

  // "/" is the runs list too, so highlight "Runs" there.
  const runsActive = pathname === '/' || pathname.startsWith('/runs')
  return (
    <>
      <header className="navbar">
        <Link to="/" className="brand">
          Upgrade Lab
        </Link>
        <nav>
          <NavLink to="/runs" className={runsActive ? 'active' : undefined}>
            Runs
          </NavLink>
          <NavLink to="/new" className={({ isActive }) => (isActive ? 'active' : undefined)}>
            New run
          </NavLink>
          <NavLink to="/compare" className={({ isActive }) => (isActive ? 'active' : undefined)}>
            Compare
          </NavLink>
          <NavLink to="/targets" className={({ isActive }) => (isActive ? 'active' : undefined)}>
            Targets
          </NavLink>
          <NavLink to="/datasets" className={({ isActive }) => (isActive ? 'active' : undefined)}>
            Datasets
          </NavLink>
          <NavLink to="/replays" className={({ isActive }) => (isActive ? 'active' : undefined)}>
            Replays
          </NavLink>
        </nav>
        <span className="muted" data-testid="signed-in-user">
          {me.data.username} ({me.data.role}){' '}
          <button
            type="button"
            className="btn btn-secondary btn-small"
            onClick={() => void api.logout().finally(() => queryClient.invalidateQueries({ queryKey: ['me'] }))}
          >
            Sign out
          </button>
        </span>
      </header>
      <main>
        <Routes>
          <Route path="/" element={<RunsPage />} />
          <Route path="/runs" element={<RunsPage />} />
          <Route path="/runs/:id" element={<RunPage />} />
          <Route path="/new" element={<NewRunPage />} />
          <Route path="/workloads/:slug" element={<WorkloadPage />} />
          <Route path="/compare" element={<ComparePage />} />
          <Route path="/targets" element={<TargetsPage />} />
          <Route path="/targets/:name" element={<TargetPage />} />
          <Route path="/datasets" element={<DatasetsPage />} />
          <Route path="/replays" element={<ReplaysPage />} />
          <Route path="/replays/:id" element={<ReplayPage />} />
          <Route path="*" element={<NotFound />} />
        </Routes>
      </main>
    </>
  )
}
