import { isImageType } from '../model/image-types.js';

/** The size of base64 data in bytes. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** A `data:` URL of base64 data. */
export function dataUrl(mimeType: string, data: string): string {
  return `data:${mimeType};base64,${data}`;
}

/** Inline data of an event or artifact: an image as the image, anything else as its type and size. */
export function InlineData({ mimeType, data, label }: { mimeType: string; data: string; label?: string }) {
  const bytes = base64Bytes(data);
  if (isImageType(mimeType)) {
    return (
      <img
        class="inline-image"
        src={dataUrl(mimeType, data)}
        alt={label ?? `${mimeType}, ${bytes} bytes`}
        title={`${label ? `${label}: ` : ''}${mimeType}, ${bytes} bytes`}
      />
    );
  }
  return (
    <span>
      <span class="tag">data</span> {mimeType}, {bytes} bytes
    </span>
  );
}
