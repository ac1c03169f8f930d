/*
 * fuzz_history.c - fuzz target: zke_history_decode(), the payload of history;
 * on success, the encode/decode round trip (roundtrip.c, fuzz.h).
 */
#include "zkelect.h"
#include "codec.h"
#include "fuzz.h"

FUZZ_CODEC_TARGET(history)
