import type { Account } from '../../client'
import { useCollapsedRows } from '../../components/CollapsedRows'
import { EmptyRow, TableHead } from '../../components/Table/Table'

/** The captured accounts: user, host and authentication plugin (the capture never reads a hash);
 * `error`: why the account the lab connects with could not read them (the server's words). */
export function AccountsTable({ accounts, error }: { accounts: Account[] | null; error: string | null }) {
  const { shown, toggle } = useCollapsedRows(accounts ?? [], 'accounts-more')
  return (
    <section id="capture-accounts" data-testid="capture-accounts">
      <h2>Accounts</h2>
      {error && (
        <p className="notice" data-testid="capture-accounts-error">
          Accounts not read: {error}
        </p>
      )}
      {accounts && (
        <table className="data-table">
          <TableHead columns={['User', 'Host', 'Authentication plugin']} />
          <tbody>
            {shown.map((a) => (
              <tr key={`${a.user}@${a.host}`} data-testid="capture-account">
                <td className="mono">{a.user}</td>
                <td className="mono">{a.host}</td>
                <td className="mono">{a.plugin}</td>
              </tr>
            ))}
            {accounts.length === 0 && (
              <EmptyRow columns={3}>No account.</EmptyRow>
            )}
          </tbody>
        </table>
      )}
      {toggle}
    </section>
  )
}
