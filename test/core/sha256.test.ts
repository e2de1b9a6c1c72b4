import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256, sameBytes, sha256 } from '../../src/core/sha256.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const text = (s: string) => new TextEncoder().encode(s);
const bytesOf = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));

describe('sha256', () => {
  it("gives FIPS 180-4's example digests (one block, two blocks, the empty message, a million a's)", () => {
    expect(hex(sha256(text('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hex(sha256(text('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')))).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    expect(hex(sha256(new Uint8Array(0)))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(hex(sha256(new Uint8Array(1e6).fill(0x61)))).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
  });

  it("equals Node's at every length around the block and padding boundaries", () => {
    for (let n = 0; n < 200; n++) {
      const message = new Uint8Array(n).map((_, i) => (i * 131 + n) & 255);
      expect(hex(sha256(message)), `length ${n}`).toBe(createHash('sha256').update(message).digest('hex'));
    }
  });
});

describe('hmacSha256', () => {
  it("gives RFC 4231's test cases 1, 2, 3, 4, 6 and 7 (keys shorter and longer than a block)", () => {
    const cases: Array<[string, string, string]> = [
      ['0b'.repeat(20), hex(text('Hi There')), 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7'],
      [hex(text('Jefe')), hex(text('what do ya want for nothing?')), '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843'],
      ['aa'.repeat(20), 'dd'.repeat(50), '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe'],
      ['0102030405060708090a0b0c0d0e0f10111213141516171819', 'cd'.repeat(50), '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b'],
      [
        'aa'.repeat(131),
        hex(text('Test Using Larger Than Block-Size Key - Hash Key First')),
        '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
      ],
      [
        'aa'.repeat(131),
        hex(
          text(
            'This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.',
          ),
        ),
        '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2',
      ],
    ];
    for (const [key, data, mac] of cases) expect(hex(hmacSha256(bytesOf(key), bytesOf(data)))).toBe(mac);
  });

  it("equals Node's for keys of 0 to 130 bytes", () => {
    for (let n = 0; n <= 130; n++) {
      const key = new Uint8Array(n).map((_, i) => (i * 7 + 3) & 255);
      const message = text(`message ${n}`);
      expect(hex(hmacSha256(key, message)), `key length ${n}`).toBe(createHmac('sha256', key).update(message).digest('hex'));
    }
  });
});

describe('sameBytes', () => {
  it('is true for equal bytes only', () => {
    expect(sameBytes(text('abc'), text('abc'))).toBe(true);
    expect(sameBytes(text('abc'), text('abd'))).toBe(false);
    expect(sameBytes(text('abc'), text('ab'))).toBe(false);
  });
});
