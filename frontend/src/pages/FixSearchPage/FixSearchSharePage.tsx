import { SharedExport } from '../../components/JobPage/JobTools'
import { SharedPage } from '../../components/JobPage/SharedPage'
import { sharedFixSearchQuery } from '../../queries/fixsearches'
import { FixSearchView } from './FixSearchView'

/** /share/fixsearches/:token: a fix search read-only, without signing in. No cancel or share; the
 * replay is named, not linked (its page needs a sign-in). */
export function FixSearchSharePage() {
  return (
    <SharedPage query={sharedFixSearchQuery}>
      {(data, token) => <FixSearchView search={data} linkReplay={false} tools={<SharedExport kind="fixsearches" token={token} testId="fix" />} />}
    </SharedPage>
  )
}
