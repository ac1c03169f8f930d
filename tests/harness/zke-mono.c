/*
 * zke-mono.c - print CLOCK_MONOTONIC in milliseconds with 3 decimals
 * ("12345.678"): the clock of zkelectd's event logs (mono_ms), for hooks and
 * shell tests that stamp their own times. No arguments.
 */
#include "config.h"

#include <stdio.h>
#include <time.h>

int
main(int argc, char **argv)
{
    struct timespec ts;

    (void)argv;
    if (argc != 1) {
        fputs("usage: zke-mono\n", stderr);
        return 2;
    }
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
        perror("zke-mono: clock_gettime(CLOCK_MONOTONIC)");
        return 1;
    }
    printf("%lld.%03ld\n", (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000,
        ts.tv_nsec / 1000 % 1000);
    return 0;
}
