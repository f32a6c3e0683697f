import { describe, expect, it } from 'vitest'
import type { Dataset } from '../../api/models'
import { deleteQuestion } from './deleteQuestion'

const dataset = (replay_count: number) => ({ name: 'shop', replay_count }) as Dataset

describe('deleteQuestion', () => {
  it('says how many replay reports refer to the dataset and that they are kept', () => {
    expect(deleteQuestion(dataset(3))).toContain('3 replay reports measured on it are kept')
    expect(deleteQuestion(dataset(1))).toContain('1 replay report measured on it is kept')
    expect(deleteQuestion(dataset(0))).toMatch(/^Delete dataset shop\? Its dump and its loaded copies/)
  })
})
