import { AgentCard } from '@a2a-js/sdk';

/** The card as A2A 1.0 clients read it (ProtoJSON). */
export function cardJson(card: AgentCard): unknown {
  return AgentCard.toJSON(card);
}

/**
 * The card for A2A 0.3 clients (ADK JS and others on @a2a-js/sdk 0.3), which ask without an
 * `A2A-Version` header: the 0.3 fields (`url`, `preferredTransport`, `protocolVersion`, ...) and,
 * beside them, the 1.0 `supportedInterfaces`, so a 1.0 client that reads it still finds both. The
 * two versions share no top-level field that differs in meaning.
 */
export function legacyCardJson(card: AgentCard): unknown {
  const primary = card.supportedInterfaces[0]!;
  const bearer = Object.keys(card.securitySchemes).length > 0;
  return {
    name: card.name,
    description: card.description,
    url: primary.url,
    preferredTransport: primary.protocolBinding,
    protocolVersion: '0.3.0',
    additionalInterfaces: [{ url: primary.url, transport: primary.protocolBinding }],
    version: card.version,
    ...(card.provider ? { provider: { organization: card.provider.organization, url: card.provider.url } } : {}),
    ...(card.documentationUrl ? { documentationUrl: card.documentationUrl } : {}),
    capabilities: {
      streaming: card.capabilities?.streaming ?? false,
      pushNotifications: card.capabilities?.pushNotifications ?? false,
      stateTransitionHistory: false,
    },
    ...(bearer ? { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } }, security: [{ bearer: [] }] } : {}),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((s) => ({ id: s.id, name: s.name, description: s.description, tags: s.tags })),
    supportsAuthenticatedExtendedCard: false,
    supportedInterfaces: (cardJson(card) as { supportedInterfaces: unknown }).supportedInterfaces,
  };
}
