#!/usr/bin/perl
# Text CAPTCHAs drawn by Perl generators from Debian's packages, for benchmarks/_ocr_third_party.py.
# Usage: perl draw.pl GENERATOR COUNT SEED  ->  JSON list of {"text", "image_base64"} on stdout.
# Each is drawn as its documentation shows; srand(SEED) makes the draws repeat.
use strict;
use warnings;
use File::Temp qw(tempdir);
use JSON::PP;
use MIME::Base64;

my ($generator, $count, $seed) = @ARGV;
srand($seed // 0);
my @made;

if ($generator eq 'gd-securityimage') {
    # GD::SecurityImage 1.75 (libgd-securityimage-perl), in turn at random: its SYNOPSIS's first
    # example (80x30, ten lines, GD's "giant" face, `create(normal => 'rect')`, PNG) and the
    # configuration Catalyst::Plugin::Captcha's documentation gives it (80x30, seven lines,
    # "giant", `create(normal => 'circle')`, 100 particles, JPEG). Six digits, its default.
    # (The SYNOPSIS's TrueType example, scrambled at 100x40, cuts its own characters off.)
    require GD::SecurityImage;
    GD::SecurityImage->import;
    for (1 .. $count) {
        my $catalyst = rand() < 0.5;
        my $image = GD::SecurityImage->new(width => 80, height => 30, lines => $catalyst ? 7 : 10, gd_font => 'giant');
        $image->random;
        $image->create(normal => $catalyst ? 'circle' : 'rect');
        $image->particle(100) if $catalyst;
        my ($data, $mime, $text) = $image->out(force => $catalyst ? 'jpeg' : 'png');
        push @made, {text => "$text", image_base64 => encode_base64($data, '')};
    }
} elsif ($generator eq 'authen-captcha') {
    # Authen::Captcha 1.024 (libauthen-captcha-perl): its SYNOPSIS (`generate_code(5)` in array
    # context, its bundled character and background pictures, PNG in the output folder).
    require Authen::Captcha;
    my $folder = tempdir(CLEANUP => 1);
    my $captcha = Authen::Captcha->new(data_folder => $folder, output_folder => $folder);
    for (1 .. $count) {
        my ($token, $text) = $captcha->generate_code(5);
        open(my $fh, '<:raw', "$folder/$token.png") or die "no image for $token: $!";
        local $/;
        my $data = <$fh>;
        close($fh);
        push @made, {text => $text, image_base64 => encode_base64($data, '')};
    }
} else {
    print STDERR "unknown generator: $generator\n";
    exit 2;
}
print encode_json(\@made);
