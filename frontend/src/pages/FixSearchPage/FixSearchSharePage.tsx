import { useQuery } from '@tanstack/react-query'
import { useParams } from 'react-router-dom'
import { ExportLinks } from '../../components/JobPage/JobTools'
import { SharedPage } from '../../components/JobPage/SharedPage'
import { sharedFixSearchQuery } from '../../queries/fixsearches'
import { FixSearchView } from './FixSearchView'

/** /share/fixsearches/:token: a fix search read-only, without signing in. No cancel or share; the
 * replay is named, not linked (its page needs a sign-in). */
export function FixSearchSharePage() {
  const { token = '' } = useParams()
  const shared = useQuery(sharedFixSearchQuery(token))
  return (
    <SharedPage found={shared}>
      {(data) => (
        <FixSearchView
          search={data}
          linkReplay={false}
          tools={
            <p className="muted">
              <ExportLinks href={`/api/public/fixsearches/${encodeURIComponent(token)}/export`} testId="fix" />
            </p>
          }
        />
      )}
    </SharedPage>
  )
}
