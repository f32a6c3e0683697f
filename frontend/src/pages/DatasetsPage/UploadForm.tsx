import { useState } from 'react'
import { uploadDataset } from '../../api/replay'
import { ErrorBox } from '../../components/ErrorBox'

const MB = 1024 * 1024

/** Name + dump file -> streamed PUT with a progress bar (bytes sent / file size). */
export function UploadForm({ onUploaded }: { onUploaded: () => void }) {
  const [name, setName] = useState('')
  const [file, setFile] = useState<File | null>(null)
  const [sent, setSent] = useState<[number, number] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const busy = sent !== null

  async function submit(event: React.FormEvent) {
    event.preventDefault()
    if (!file) return
    setError(null)
    setSent([0, file.size])
    try {
      await uploadDataset(name, file, (done, total) => setSent([done, total]))
      setName('')
      setFile(null)
      onUploaded()
    } catch (e) {
      setError(e)
    } finally {
      setSent(null)
    }
  }

  return (
    <form className="card" onSubmit={(e) => void submit(e)} data-testid="dataset-upload">
      <label>
        Name{' '}
        <input
          name="dataset-name"
          value={name}
          pattern="[a-z0-9][a-z0-9_\-]{0,63}"
          required
          onChange={(e) => setName(e.target.value)}
        />
      </label>{' '}
      <label>
        Dump <input name="dataset-file" type="file" required onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
      </label>{' '}
      <button type="submit" className="btn btn-primary" disabled={busy || !file || !name}>
        Upload
      </button>
      {sent && (
        <div data-testid="upload-progress">
          <progress value={sent[0]} max={sent[1] || 1} /> {(sent[0] / MB).toFixed(1)} / {(sent[1] / MB).toFixed(1)} MB
        </div>
      )}
      <ErrorBox error={error} title="Upload refused" testId="upload-error" />
    </form>
  )
}
