/** File extensions and the media types they stand for: the common files agents read and write. */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.html': 'text/html',
  '.json': 'application/json',
  '.jsonl': 'application/jsonl',
  '.xml': 'application/xml',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.mp4': 'video/mp4',
  '.py': 'text/x-python',
  '.js': 'text/javascript',
  '.ts': 'text/x-typescript',
  '.sh': 'text/x-shellscript',
};

/**
 * The media type of a file by its extension (case-insensitive), `application/octet-stream` for an
 * unknown one: what an artifact made from a file (an upload, a file code wrote) is saved as.
 */
export function mediaTypeOfFile(filename: string): string {
  const dot = filename.lastIndexOf('.');
  const extension = dot > filename.lastIndexOf('/') ? filename.slice(dot).toLowerCase() : '';
  return BY_EXTENSION[extension] ?? 'application/octet-stream';
}

/** The usual extension (with its dot) of a media type; empty for one without. */
export function extensionOfMediaType(mediaType: string): string {
  const type = mediaType.split(';')[0]!.trim().toLowerCase();
  for (const [extension, known] of Object.entries(BY_EXTENSION)) if (known === type) return extension;
  return '';
}
