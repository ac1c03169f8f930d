/*
 * fuzz_leader.c - fuzz target: zke_leader_decode(), the payload of leader;
 * on success, the encode/decode round trip (roundtrip.c, fuzz.h).
 */
#include "zkelect.h"
#include "codec.h"
#include "fuzz.h"

FUZZ_CODEC_TARGET(leader)
