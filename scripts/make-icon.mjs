// Draws resources/icon.png (512x512): a dark rounded tile with stacked "memory" bars. Generated
// rather than drawn by hand so the icon can be remade without an image editor.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const size = 512;
const pixels = Buffer.alloc(size * size * 4);

function inRoundedRect(x, y, x0, y0, x1, y1, r) {
  if (x < x0 || x > x1 || y < y0 || y > y1) return false;
  const cx = Math.min(Math.max(x, x0 + r), x1 - r);
  const cy = Math.min(Math.max(y, y0 + r), y1 - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

const bars = [
  { y: 130, w: 300, color: [47, 111, 222] },
  { y: 210, w: 240, color: [91, 150, 240] },
  { y: 290, w: 180, color: [140, 185, 250] },
  { y: 370, w: 120, color: [195, 218, 252] },
];

for (let y = 0; y < size; y++) {
  for (let x = 0; x < size; x++) {
    const i = (y * size + x) * 4;
    if (!inRoundedRect(x, y, 16, 16, 495, 495, 96)) continue;
    let color = [29, 35, 48];
    for (const bar of bars) {
      if (inRoundedRect(x, y, 106, bar.y, 106 + bar.w, bar.y + 52, 18)) color = bar.color;
    }
    pixels.set([...color, 255], i);
  }
}

const raw = Buffer.alloc(size * (size * 4 + 1));
for (let y = 0; y < size; y++)
  pixels.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
const header = Buffer.alloc(13);
header.writeUInt32BE(size, 0);
header.writeUInt32BE(size, 4);
header[8] = 8; // bit depth
header[9] = 6; // RGBA
writeFileSync(
  new URL('../resources/icon.png', import.meta.url),
  Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]),
);
