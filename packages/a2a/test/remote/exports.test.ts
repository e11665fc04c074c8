// The RemoteA2aAgent part of @troupe/a2a's public surface: changing it is a visible diff.
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as a2a from '@troupe/a2a';
import type { RemoteA2aAgentOptions, RemoteA2aErrorCode } from '@troupe/a2a';
import type { AgentCard } from '@a2a-js/sdk';

describe('@troupe/a2a, remote side', () => {
  it('exports RemoteA2aAgent and RemoteA2aError', () => {
    expect(
      Object.keys(a2a)
        .filter((name) => name.startsWith('Remote'))
        .sort(),
    ).toEqual(['RemoteA2aAgent', 'RemoteA2aError']);
  });

  it('types its options', () => {
    expectTypeOf<RemoteA2aAgentOptions['agentCard']>().toEqualTypeOf<string | URL | AgentCard>();
    expectTypeOf<RemoteA2aErrorCode>().toEqualTypeOf<
      | 'A2A_CARD'
      | 'A2A_REQUEST'
      | 'A2A_TIMEOUT'
      | 'A2A_TASK_FAILED'
      | 'A2A_TASK_REJECTED'
      | 'A2A_TASK_CANCELED'
      | 'A2A_AUTH_REQUIRED'
      | 'A2A_ANSWER_REFUSED'
      | 'A2A_TASK_LOST'
    >();
  });
});
