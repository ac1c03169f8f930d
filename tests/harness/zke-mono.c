/*
 * zke-mono - print CLOCK_MONOTONIC in milliseconds with 3 decimals
 * ("12345.678"): the time stamp hooks and test scripts write, comparable
 * with the library's mono_ms and across processes of the machine.
 */
#include <stdio.h>
#include <time.h>

int
main(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
        perror("zke-mono: clock_gettime");
        return 1;
    }
    printf("%lld.%03ld\n", (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000,
        (ts.tv_nsec / 1000) % 1000);
    return 0;
}
