import type { Dataset } from '../../api/models'

/** What the delete asks first: what goes, and the replay reports that are kept. */
export function deleteQuestion(dataset: Dataset): string {
  const count = dataset.replay_count
  const reports = `${count} replay report${count === 1 ? '' : 's'}`
  return (
    `Delete dataset ${dataset.name}? Its dump and its loaded copies on the targets are removed. ` +
    `${reports} measured on it ${count === 1 ? 'is' : 'are'} kept, with their share links and exports; ` +
    `the dataset stays listed under "Deleted" with its sha256.`
  )
}
