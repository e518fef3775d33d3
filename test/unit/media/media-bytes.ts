/**
 * The first bytes of each kind of file, padded to a size: what the sniffer reads. Not playable
 * files, only their signatures (the checks read no further, and neither does the sandbox).
 */
const latin1 = (text: string): Buffer => Buffer.from(text, 'latin1');

function padded(head: Buffer, size: number): Buffer {
  const bytes = Buffer.alloc(Math.max(size, head.length), 0x20);
  head.copy(bytes);
  return bytes;
}

const isoMedia = (brand: string, size: number) => padded(Buffer.concat([Buffer.from([0, 0, 0, 0x18]), latin1(`ftyp${brand}`)]), size);
const ole2 = (stream: string, size: number) =>
  padded(
    Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(64), Buffer.from(stream, 'utf16le')]),
    size,
  );
const zip = (part: string, size: number) =>
  padded(Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(26), latin1(part)]), size);

export const mediaBytes = {
  jpeg: (size = 64) => padded(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]), size),
  png: (size = 64) => padded(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), size),
  gif: (size = 64) => padded(latin1('GIF89a'), size),
  webp: (size = 64) => padded(latin1('RIFF\x00\x00\x00\x00WEBPVP8 '), size),
  animatedWebp: (size = 64) => padded(Buffer.concat([latin1('RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00'), Buffer.from([0x12])]), size),
  mp4: (size = 64) => isoMedia('isom', size),
  threeGpp: (size = 64) => isoMedia('3gp5', size),
  mov: (size = 64) => isoMedia('qt  ', size),
  heic: (size = 64) => isoMedia('heic', size),
  m4a: (size = 64) => isoMedia('M4A ', size),
  pdf: (size = 64) => padded(latin1('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n'), size),
  doc: (size = 512) => ole2('WordDocument', size),
  xls: (size = 512) => ole2('Workbook', size),
  ppt: (size = 512) => ole2('PowerPoint Document', size),
  docx: (size = 256) => zip('[Content_Types].xml....word/document.xml', size),
  xlsx: (size = 256) => zip('[Content_Types].xml....xl/workbook.xml', size),
  pptx: (size = 256) => zip('[Content_Types].xml....ppt/presentation.xml', size),
  zip: (size = 256) => zip('photos/beach.jpg', size),
  text: (size = 64) => padded(Buffer.from('Terms and conditions\nValid until May.\n'), size),
  html: (size = 64) => padded(Buffer.from('<!DOCTYPE html><html><body>Not found</body></html>'), size),
  junk: (size = 64) => padded(Buffer.from([0x00, 0x01, 0x02, 0x03, 0xfe]), size),
};
