/*
 * fuzz_elected.c - fuzz target: zke_elected_decode(), the payload of elected;
 * on success, the encode/decode round trip (roundtrip.c, fuzz.h).
 */
#include "zkelect.h"
#include "codec.h"
#include "fuzz.h"

FUZZ_CODEC_TARGET(elected)
