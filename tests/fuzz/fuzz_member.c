/*
 * fuzz_member.c - fuzz target: zke_member_decode(), the payload of nodes/<id>;
 * on success, the encode/decode round trip (roundtrip.c, fuzz.h).
 */
#include "zkelect.h"
#include "codec.h"
#include "fuzz.h"

FUZZ_CODEC_TARGET(member)
