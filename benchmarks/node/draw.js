// Draws text CAPTCHAs with JavaScript generators for benchmarks/_ocr_third_party.py (evaluation
// only). Usage: node draw.js GENERATOR COUNT SEED -> a JSON list of {text, svg | gif_base64 |
// png_base64}.
// Math.random (and, for trek-captcha, crypto.randomBytes) are replaced by one generator seeded
// with SEED before the library is loaded, so the same seed draws the same challenges.
// react-simple-captcha and react-captcha-code (with React, ReactDOM and the libraries it imports),
// installed here too, draw in a browser: benchmarks/_ocr_third_party.py runs their modules in
// Chromium, not through this script.
'use strict'

const [generator, countArg, seedArg] = process.argv.slice(2)
let state = Number(seedArg) >>> 0
function random() { // mulberry32
  state = (state + 0x6d2b79f5) >>> 0
  let t = state
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
Math.random = random
const crypto = require('crypto')
crypto.randomBytes = (size, callback) => {
  const bytes = Buffer.alloc(size)
  for (let i = 0; i < size; i++) bytes[i] = Math.floor(random() * 256)
  if (callback) { process.nextTick(callback, null, bytes); return undefined }
  return bytes
}

// svg-captcha 1.4.0: its README's `create()` (every default), and the options its README lists
// with their example values, in turn.
const SVG_OPTIONS = [{}, { size: 4, ignoreChars: '0o1i', noise: 1, color: true, background: '#cc9966' }]

async function main() {
  const count = Number(countArg)
  const out = []
  if (generator === 'svg-captcha') {
    const svgCaptcha = require('svg-captcha')
    for (let i = 0; i < count; i++) {
      const made = svgCaptcha.create(SVG_OPTIONS[Math.floor(random() * SVG_OPTIONS.length)])
      out.push({ text: made.text, svg: made.data })
    }
  } else if (generator === 'trek-captcha') {
    const captcha = require('trek-captcha') // its README's `await captcha()`: five letters, a random style, GIF
    for (let i = 0; i < count; i++) {
      const { token, buffer } = await captcha()
      out.push({ text: token, gif_base64: buffer.toString('base64') })
    }
  } else if (generator === 'captchapng') {
    // captchapng 0.0.1: its README's server, as it writes it: an 80x30 PNG of four digits
    // (`parseInt(Math.random()*9000+1000)`), a transparent background and grey (80, 80, 80) paint.
    const Captchapng = require('captchapng')
    for (let i = 0; i < count; i++) {
      const number = parseInt(Math.random() * 9000 + 1000)
      const picture = new Captchapng(80, 30, number)
      picture.color(0, 0, 0, 0)
      picture.color(80, 80, 80, 255)
      out.push({ text: String(number), png_base64: picture.getBase64() })
    }
  } else {
    throw new Error(`unknown generator ${generator}`)
  }
  process.stdout.write(JSON.stringify(out))
}

main().catch((error) => { console.error(error.message); process.exit(2) })
