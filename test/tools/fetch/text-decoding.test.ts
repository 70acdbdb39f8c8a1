import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseContentType } from '../../../src/tools/fetch/content-type.ts';
import { decodeText, detectEncoding } from '../../../src/tools/fetch/text-decoding.ts';

const ascii = (text: string): Buffer => Buffer.from(text, 'latin1');

describe('text decoding', () => {
  it('splits a Content-Type into media type and charset', () => {
    assert.deepEqual(parseContentType('Text/HTML; Charset="ISO-8859-1"'), { mediaType: 'text/html', charset: 'iso-8859-1' });
    assert.deepEqual(parseContentType('application/pdf'), { mediaType: 'application/pdf', charset: undefined });
    assert.deepEqual(parseContentType(undefined), { mediaType: '', charset: undefined });
  });

  it('takes the header charset first, then <meta charset>, then http-equiv, then UTF-8', () => {
    assert.equal(detectEncoding(ascii('<meta charset="gbk">'), 'iso-8859-2', true), 'iso-8859-2');
    assert.equal(detectEncoding(ascii('<html><head><meta charset=GBK>'), undefined, true), 'gbk');
    assert.equal(detectEncoding(ascii('<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">'), undefined, true), 'shift_jis');
    assert.equal(detectEncoding(ascii('<?xml version="1.0" encoding="windows-1251"?><html>'), undefined, true), 'windows-1251');
    assert.equal(detectEncoding(ascii('<html><body>no declaration</body></html>'), undefined, true), 'utf-8');
    assert.equal(detectEncoding(ascii('<meta charset="gbk">'), undefined, false), 'utf-8', 'plain text has no meta');
  });

  it('lets a byte-order mark win, and skips unknown labels', () => {
    assert.equal(detectEncoding(Buffer.from([0xef, 0xbb, 0xbf, 0x41]), 'gbk', true), 'utf-8');
    assert.equal(detectEncoding(ascii('<meta charset="klingon">'), 'nonsense', true), 'utf-8');
    assert.equal(detectEncoding(ascii('<meta charset="utf-16">'), undefined, true), 'utf-8');
  });

  it('decodes windows-1252 bytes 0x80-0x9F as the web does (ISO-8859-1 labels included)', () => {
    const bytes = Buffer.from([0x80, 0x20, 0x93, 0x41, 0x94, 0x20, 0x96, 0x20, 0xe9, 0x20, 0x81]);
    for (const label of ['windows-1252', 'iso-8859-1', 'latin1', 'us-ascii']) {
      assert.equal(decodeText(bytes, label, false), '€ “A” – é \u0081', label);
    }
  });

  it('decodes GBK and drops the UTF-8 BOM', () => {
    assert.equal(decodeText(Buffer.from([0xd6, 0xd0, 0xce, 0xc4]), 'gbk', false), '中文');
    assert.equal(decodeText(Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69]), undefined, false), 'hi');
  });
});
