import { Link, NavLink, Route, Routes, useLocation } from 'react-router-dom'
import { NewRunPage } from './pages/NewRunPage/NewRunPage'
import { RunPage } from './pages/RunPage/RunPage'
import { RunsPage } from './pages/RunsPage/RunsPage'
import { WorkloadPage } from './pages/WorkloadPage/WorkloadPage'

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
        </nav>
      </header>
      <main>
        <Routes>
          <Route path="/" element={<RunsPage />} />
          <Route path="/runs" element={<RunsPage />} />
          <Route path="/runs/:id" element={<RunPage />} />
          <Route path="/new" element={<NewRunPage />} />
          <Route path="/workloads/:slug" element={<WorkloadPage />} />
          <Route path="*" element={<NotFound />} />
        </Routes>
      </main>
    </>
  )
}
