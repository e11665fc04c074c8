import { ConfigurationError, InMemoryArtifactService } from '@troupe/core';
import { expect, it } from 'vitest';
import { artifactServiceContract } from '@troupe/core/testing/contracts';

// In-memory storage belongs to one instance, so there is no second instance over the same storage.
artifactServiceContract('InMemoryArtifactService', async (options) => ({
  service: new InMemoryArtifactService(options),
}));

it('InMemoryArtifactService rejects a maxArtifactBytes that is not a positive whole number', () => {
  expect(() => new InMemoryArtifactService({ maxArtifactBytes: 0 })).toThrow(ConfigurationError);
  expect(() => new InMemoryArtifactService({ maxArtifactBytes: 1.5 })).toThrow(
    /'maxArtifactBytes' must be a positive whole number of bytes; got 1.5/,
  );
});
