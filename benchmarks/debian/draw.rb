#!/usr/bin/ruby
# Text CAPTCHAs drawn by Ruby generators from Debian's packages, for benchmarks/_ocr_third_party.py.
# Usage: ruby draw.rb GENERATOR COUNT SEED  ->  JSON list of {"text", "image_base64"} on stdout.
# Each is drawn as its documentation shows; srand(SEED) makes the draws repeat (the gem draws its
# text and its wave with Kernel#rand; ImageMagick's wave and implode are not random).
require 'base64'
require 'json'

generator, count, seed = ARGV
srand(Integer(seed || '0'))
made = []

if generator == 'simple-captcha2'
  # simple_captcha2 0.5.0 (ruby-simple-captcha2), a Rails engine: what its view helper and its
  # middleware do for one challenge (`set_simple_captcha_data`, then `generate_simple_captcha_image`,
  # ImageMagick's `convert` drawing a JPEG). The gem keeps each text in a database table
  # (ActiveRecord, Sequel or Mongoid); a hash stands in for that table here, defined before the
  # gem is loaded so that its autoload of a database model is never used.
  module SimpleCaptcha
    class SimpleCaptchaData
      STORE = {}
      Row = Struct.new(:key, :value) do
        def save
          STORE[key] = self
        end
      end

      def self.get_data(key)
        STORE[key] || Row.new(key, nil)
      end

      def self.remove_data(key)
        STORE.delete(key)
      end
    end
  end
  require 'rails' # the gem reads Rails.env when it loads and is an engine of Rails
  require 'simple_captcha'

  page = Class.new do
    include SimpleCaptcha::ViewHelper
    include SimpleCaptcha::ImageHelpers
  end.new
  count.to_i.times do |i|
    SimpleCaptcha.setup do |sc|
      # Debian's ImageMagick, not whatever `convert` comes first on PATH (its README: `image_magick_path`).
      sc.image_magick_path = '/usr/bin'
      # Its README: "The default font, that imagemagick uses is Arial. Make sure that font is
      # available ... or change the font", with `sc.font = "DejaVu-Sans"`; Debian ships no Arial.
      sc.font = 'DejaVu-Sans'
      if rand < 0.5 # its defaults: 100x28, five letters, simply_blue, low distortion, medium implode
        sc.image_size, sc.length, sc.image_style, sc.distortion, sc.implode = '100x28', 5, 'simply_blue', 'low', 'medium'
      else # the initializer its README shows
        sc.image_size, sc.length, sc.image_style, sc.distortion, sc.implode = '120x40', 6, 'simply_green', 'medium', 'low'
      end
    end
    key = SimpleCaptcha::Utils.generate_key(i.to_s, 'captcha')
    page.send(:set_simple_captcha_data, key, {})
    image = page.send(:generate_simple_captcha_image, key)
    made << { text: SimpleCaptcha::Utils.simple_captcha_value(key), image_base64: Base64.strict_encode64(image) }
  end
else
  warn "unknown generator: #{generator}"
  exit 2
end
print JSON.generate(made)
