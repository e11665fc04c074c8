/** MIME types shown as an image: raster and vector images a browser draws in an <img> (which never runs an SVG's scripts). */
const IMAGE = /^image\/(png|jpe?g|gif|webp|avif|bmp|svg\+xml|x-icon|vnd\.microsoft\.icon)$/i;

/** True for inline data the UI shows as an image. */
export function isImageType(mimeType: string): boolean {
  return IMAGE.test(mimeType.split(';')[0]!.trim());
}
