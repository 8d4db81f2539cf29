<?php
// Text CAPTCHAs drawn by PHP generators from Debian's packages, for benchmarks/_ocr_third_party.py.
// Usage: php draw.php GENERATOR COUNT SEED  ->  JSON list of {"text", "image_base64"} on stdout.
// Each is drawn as its documentation shows; mt_srand(SEED) makes the draws repeat (PHP's rand,
// mt_rand and array_rand all draw from the Mersenne Twister it seeds).
declare(strict_types=1);

[$_, $generator, $count, $seed] = $argv + [null, '', '1', '0'];
mt_srand((int) $seed);
$made = [];

if ($generator === 'gregwar-captcha') {
    // Gregwar/Captcha 1.1.9 (php-gregwar-captcha): its README's `build()` then `get()` (JPEG,
    // 150x40, five characters, a face from Debian's default list, distortion, lines).
    require_once '/usr/share/php/Gregwar/Captcha/autoload.php';
    for ($i = 0; $i < (int) $count; $i++) {
        $builder = new Gregwar\Captcha\CaptchaBuilder();
        $builder->build();
        $made[] = ['text' => $builder->getPhrase(), 'image_base64' => base64_encode($builder->get())];
    }
} elseif ($generator === 'text-captcha') {
    // PEAR Text_CAPTCHA 1.0.2 (php-text-captcha): its Image driver as its example sets it up (200x80
    // PNG, the example's colours, anti-aliased, a phrase from Text_Password). The example names
    // Courier (COUR.TTF), which Debian does not ship: GNU FreeMono, a Courier of the same shape.
    require_once 'Text/CAPTCHA.php';
    for ($i = 0; $i < (int) $count; $i++) {
        $captcha = Text_CAPTCHA::factory('Image');
        $captcha->init(['width' => 200, 'height' => 80, 'output' => 'png', 'imageOptions' => [
            'font_size' => 24, 'font_path' => '/usr/share/fonts/truetype/freefont/', 'font_file' => 'FreeMono.ttf',
            'text_color' => '#DDFF99', 'lines_color' => '#CCEEDD', 'background_color' => '#555555',
            'antialias' => true]]);
        $made[] = ['text' => $captcha->getPhrase(), 'image_base64' => base64_encode($captcha->getCAPTCHA())];
    }
} else {
    fwrite(STDERR, "unknown generator: $generator\n");
    exit(2);
}
echo json_encode($made);
