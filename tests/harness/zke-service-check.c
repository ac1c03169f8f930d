/*
 * zke-service-check.c - the service-level safety check for shell tests: did
 * two nodes' services ever run at once? Reads the lines the hooks stamped
 * ("NODE start|end MONO EPOCH", svcint.h) and prints every overlap of two
 * different nodes' [takeover start, stepdown end] intervals.
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "svcint.h"

static const char usage[] =
"usage: zke-service-check FILE [--frozen NODE:FROM-TO ...] [--bound-ms N] [--end MS]\n"
"\n"
"FILE has one line per hook stamp, \"NODE start MONO EPOCH\" (takeover hook\n"
"start) or \"NODE end MONO EPOCH\" (stepdown hook end), MONO in CLOCK_MONOTONIC\n"
"milliseconds (zke-mono). Per node a start opens an interval and the next end\n"
"closes it; an interval left open lasts to the end (--end MS, default now).\n"
"Every overlap of two different nodes' intervals is printed; it is a\n"
"violation unless it lies inside a frozen window (SIGSTOP .. SIGCONT, in\n"
"CLOCK_MONOTONIC ms) of one of the two nodes extended by --bound-ms (default 0).\n"
"The last line is \"service: N intervals, longest overlap X ms (Y ms outside\n"
"frozen windows)\". Exit status: 0 no violation, 1 violations, 2 bad input.\n";

static int
parse_window(struct svc *s, const char *arg)
{
    char node[SVC_NODE_MAX], from[64], *dash;
    const char *colon = strrchr(arg, ':');
    int64_t a, b;

    if (colon == NULL || colon == arg || (size_t)(colon - arg) >= sizeof node ||
        strlen(colon + 1) >= sizeof from)
        goto bad;
    memcpy(node, arg, colon - arg);
    node[colon - arg] = '\0';
    strcpy(from, colon + 1);
    if ((dash = strchr(from, '-')) == NULL)
        goto bad;
    *dash = '\0';
    if (svc_parse_ms(from, &a) < 0 || svc_parse_ms(dash + 1, &b) < 0 || b < a)
        goto bad;
    if (svc_frozen(s, node, a, b) < 0) {
        fputs("zke-service-check: out of memory\n", stderr);
        exit(2);
    }
    return 0;
bad:
    fprintf(stderr, "zke-service-check: --frozen %s: expected NODE:FROM-TO in milliseconds, "
        "FROM <= TO (like n1:1200.5-3400)\n", arg);
    return -1;
}

int
main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "frozen", required_argument, NULL, 'F' },
        { "bound-ms", required_argument, NULL, 'b' },
        { "end", required_argument, NULL, 'e' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    struct svc s = { 0 };
    struct svc_figures fig;
    struct timespec ts;
    int64_t bound_us = 0, end_us = -1;
    char err[512];
    size_t i;
    int c, rc;

    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'F':
            if (parse_window(&s, optarg) < 0)
                return 2;
            break;
        case 'b':
            if (svc_parse_ms(optarg, &bound_us) < 0) {
                fprintf(stderr, "zke-service-check: --bound-ms %s: not a number of "
                    "milliseconds\n", optarg);
                return 2;
            }
            break;
        case 'e':
            if (svc_parse_ms(optarg, &end_us) < 0) {
                fprintf(stderr, "zke-service-check: --end %s: not a time in milliseconds\n",
                    optarg);
                return 2;
            }
            break;
        case 'h':
            fputs(usage, stdout);
            return 0;
        default:
            fputs(usage, stderr);
            return 2;
        }
    }
    if (argc - optind != 1) {
        fputs(usage, stderr);
        return 2;
    }
    if (end_us < 0) {
        clock_gettime(CLOCK_MONOTONIC, &ts);
        end_us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
    }
    if (svc_load(&s, argv[optind], 0, err, sizeof err) < 0) {
        fprintf(stderr, "zke-service-check: %s\n", err);
        svc_free(&s);
        return 2;
    }
    for (i = 0; i < s.nst; i++) {
        if (s.st[i].at_us > end_us) {
            fprintf(stderr, "zke-service-check: %s:%zu: %s's stamp is after the end of the "
                "run (--end, or now): not CLOCK_MONOTONIC milliseconds?\n", argv[optind],
                s.st[i].line, s.st[i].node);
            svc_free(&s);
            return 2;
        }
    }
    if ((rc = svc_check(&s, end_us, bound_us, stdout, &fig)) < 0) {
        fputs("zke-service-check: out of memory\n", stderr);
        svc_free(&s);
        return 2;
    }
    if (s.nwin > 0)
        printf("service: %zu frozen window%s, allowed for %" PRId64 ".%03" PRId64
            " ms after each\n", s.nwin, s.nwin == 1 ? "" : "s", bound_us / 1000,
            bound_us % 1000);
    svc_summary(&fig, stdout);
    svc_free(&s);
    return rc > 0 ? 1 : 0;
}
