/*
 * fuzz_config.c - fuzz target: zke_config_decode(), the payload of config;
 * on success, the encode/decode round trip (roundtrip.c, fuzz.h).
 */
#include "zkelect.h"
#include "codec.h"
#include "fuzz.h"

FUZZ_CODEC_TARGET(config)
