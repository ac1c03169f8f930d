/*
 * fuzz_switchover.c - fuzz target: zke_switchover_decode(), the payload
 * of switchover; on success, the encode/decode round trip (roundtrip.c).
 */
#include "zkelect.h"
#include "codec.h"
#include "fuzz.h"

FUZZ_CODEC_TARGET(switchover)
