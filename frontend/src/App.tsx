import { useQuery, useQueryClient } from '@tanstack/react-query'
import { lazy, Suspense, useEffect, type ComponentType } from 'react'
import { Link, NavLink, Route, Routes, useLocation } from 'react-router-dom'
import { api } from './api/client'
import { ME_KEY, meQuery } from './queries/users'

/** A page loaded when first shown (its own chunk): the first page needs only its own code. */
function page<K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) {
  return lazy(() => load().then((module) => ({ default: module[name] })))
}

const ComparePage = page(() => import('./pages/ComparePage/ComparePage'), 'ComparePage')
const DatasetsPage = page(() => import('./pages/DatasetsPage/DatasetsPage'), 'DatasetsPage')
const LoginPage = page(() => import('./pages/LoginPage/LoginPage'), 'LoginPage')
const NewRunPage = page(() => import('./pages/NewRunPage/NewRunPage'), 'NewRunPage')
const ReplayPage = page(() => import('./pages/ReplayPage/ReplayPage'), 'ReplayPage')
const ReplaysPage = page(() => import('./pages/ReplayPage/ReplaysPage'), 'ReplaysPage')
const RunPage = page(() => import('./pages/RunPage/RunPage'), 'RunPage')
const RunsPage = page(() => import('./pages/RunsPage/RunsPage'), 'RunsPage')
const WorkloadPage = page(() => import('./pages/WorkloadPage/WorkloadPage'), 'WorkloadPage')
const SharePage = page(() => import('./pages/SharePage/SharePage'), 'SharePage')
const TargetPage = page(() => import('./pages/TargetPage/TargetPage'), 'TargetPage')
const TargetsPage = page(() => import('./pages/TargetsPage/TargetsPage'), 'TargetsPage')
const CapturePage = page(() => import('./pages/CapturePage/CapturePage'), 'CapturePage')
const CapturesPage = page(() => import('./pages/CapturePage/CapturesPage'), 'CapturesPage')
const PoolsPage = page(() => import('./pages/PoolsPage/PoolsPage'), 'PoolsPage')
const AttributionPage = page(() => import('./pages/AttributionPage/AttributionPage'), 'AttributionPage')
const AttributionSharePage = page(
  () => import('./pages/AttributionSharePage/AttributionSharePage'),
  'AttributionSharePage',
)
const FixSearchPage = page(() => import('./pages/FixSearchPage/FixSearchPage'), 'FixSearchPage')
const ConcurrentReplayPage = page(() => import('./pages/ConcurrentReplayPage/ConcurrentReplayPage'), 'ConcurrentReplayPage')
const ConcurrentReplaySharePage = page(
  () => import('./pages/ConcurrentReplayPage/ConcurrentReplayPage'),
  'ConcurrentReplaySharePage',
)
const CaptureSharePage = page(() => import('./pages/CapturePage/CaptureSharePage'), 'CaptureSharePage')
const CheckSharePage = page(() => import('./pages/CapturePage/CaptureSharePage'), 'CheckSharePage')
const FixSearchSharePage = page(() => import('./pages/FixSearchPage/FixSearchSharePage'), 'FixSearchSharePage')
const AssessmentPage = page(() => import('./pages/AssessmentPage/AssessmentPage'), 'AssessmentPage')
const AssessmentSharePage = page(() => import('./pages/AssessmentPage/AssessmentPage'), 'AssessmentSharePage')

const loading = <p className="muted page">Loading…</p>

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
        <Suspense fallback={loading}>
          <Routes>
            <Route path="/share/:token" element={<SharePage />} />
            <Route path="/share/attributions/:token" element={<AttributionSharePage />} />
            <Route path="/share/fixsearches/:token" element={<FixSearchSharePage />} />
            <Route path="/share/captures/:token" element={<CaptureSharePage />} />
            <Route path="/share/captures/checks/:token" element={<CheckSharePage />} />
            <Route path="/share/assessments/:token" element={<AssessmentSharePage />} />
            <Route path="/share/concurrent-replays/:token" element={<ConcurrentReplaySharePage />} />
          </Routes>
        </Suspense>
      </main>
    )
  }
  return <SignedInApp pathname={pathname} />
}

function SignedInApp({ pathname }: { pathname: string }) {
  const queryClient = useQueryClient()
  const me = useQuery({ ...meQuery(), retry: false })
  useEffect(() => {
    const onUnauthorized = () => void queryClient.invalidateQueries({ queryKey: ME_KEY })
    window.addEventListener('upgradelab:unauthorized', onUnauthorized)
    return () => window.removeEventListener('upgradelab:unauthorized', onUnauthorized)
  }, [queryClient])
  if (me.isPending) return loading
  if (!me.data)
    return (
      <Suspense fallback={loading}>
        <LoginPage />
      </Suspense>
    )

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
          <NavLink to="/captures" className={({ isActive }) => (isActive ? 'active' : undefined)}>
            Captures
          </NavLink>
          <NavLink to="/pools" className={({ isActive }) => (isActive ? 'active' : undefined)}>
            Pools
          </NavLink>
        </nav>
        <span className="muted" data-testid="signed-in-user">
          {me.data.username} ({me.data.role}){' '}
          <button
            type="button"
            className="btn btn-secondary btn-small"
            onClick={() => void api.logout().finally(() => queryClient.invalidateQueries({ queryKey: ME_KEY }))}
          >
            Sign out
          </button>
        </span>
      </header>
      <main>
        <Suspense fallback={loading}>
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
            <Route path="/pools" element={<PoolsPage />} />
            <Route path="/captures" element={<CapturesPage />} />
            <Route path="/captures/:id" element={<CapturePage />} />
            <Route path="/attributions/:id" element={<AttributionPage />} />
            <Route path="/fixsearches/:id" element={<FixSearchPage />} />
            <Route path="/concurrent-replays/:id" element={<ConcurrentReplayPage />} />
            <Route path="/assessments/:id" element={<AssessmentPage />} />
            <Route path="*" element={<NotFound />} />
          </Routes>
        </Suspense>
      </main>
    </>
  )
}
