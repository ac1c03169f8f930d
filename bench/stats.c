/*
 * stats.c - samples, nearest-rank percentiles, the stdout table and the CSV
 * files of zkbench.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static FILE *summary_f;

void
samples_add(struct samples *s, int64_t us)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        int64_t *v = realloc(s->v, cap * sizeof(*v));
        if (v == NULL) {
            fprintf(stderr, "zkbench: out of memory\n");
            exit(1);
        }
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = us;
}

void
samples_free(struct samples *s)
{
    free(s->v);
    memset(s, 0, sizeof(*s));
}

static int
cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least p% of the samples <= it. */
static double
rank(const int64_t *v, size_t n, double p)
{
    size_t k = (size_t)((p / 100.0) * (double)n + 0.999999);

    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return (double)v[k - 1];
}

void
samples_summary(const struct samples *s, struct summary *out)
{
    int64_t *v;
    double sum = 0;
    size_t i;

    memset(out, 0, sizeof(*out));
    if (s->n == 0)
        return;
    v = malloc(s->n * sizeof(*v));
    if (v == NULL) {
        fprintf(stderr, "zkbench: out of memory\n");
        exit(1);
    }
    memcpy(v, s->v, s->n * sizeof(*v));
    qsort(v, s->n, sizeof(*v), cmp_i64);
    for (i = 0; i < s->n; i++)
        sum += (double)v[i];
    out->n = s->n;
    out->p50 = rank(v, s->n, 50);
    out->p90 = rank(v, s->n, 90);
    out->p99 = rank(v, s->n, 99);
    out->min = (double)v[0];
    out->max = (double)v[s->n - 1];
    out->mean = sum / (double)s->n;
    free(v);
}

/* ---- the table ----------------------------------------------------------- */

void
table_header(const char *title)
{
    printf("\n%s\n", title);
    printf("  %-44s %5s %9s %9s %9s %9s %9s\n", "metric (ms)", "n", "p50", "p90", "p99",
        "max", "mean");
    fflush(stdout);
}

void
table_row(const char *name, const struct summary *sm)
{
    if (sm->n == 0) {
        printf("  %-44s %5s\n", name, "0");
        return;
    }
    printf("  %-44s %5zu %9.3f %9.3f %9.3f %9.3f %9.3f\n", name, sm->n, sm->p50 / 1000.0,
        sm->p90 / 1000.0, sm->p99 / 1000.0, sm->max / 1000.0, sm->mean / 1000.0);
    fflush(stdout);
}

void
table_note(const char *fmt, ...)
{
    va_list ap;

    printf("  ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

/* ---- CSV ----------------------------------------------------------------- */

FILE *
csv_open(const char *name, const char *header)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", bopt.outdir, name);
    f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "zkbench: cannot write %s: %s\n", path, strerror(errno));
        return NULL;
    }
    fprintf(f, "%s\n", header);
    return f;
}

void
csv_close(FILE *f, const char *name)
{
    if (f == NULL)
        return;
    if (ferror(f) || fclose(f) != 0)
        fprintf(stderr, "zkbench: error writing %s/%s\n", bopt.outdir, name);
}

int
summary_csv_open(void)
{
    summary_f = csv_open("summary.csv", "section,metric,n,p50_ms,p90_ms,p99_ms,max_ms,mean_ms,"
        "value,unit");
    return summary_f ? 0 : -1;
}

void
summary_csv(const char *section, const char *metric, const struct summary *sm)
{
    if (summary_f == NULL)
        return;
    fprintf(summary_f, "%s,%s,%zu,%.3f,%.3f,%.3f,%.3f,%.3f,,\n", section, metric, sm->n,
        sm->p50 / 1000.0, sm->p90 / 1000.0, sm->p99 / 1000.0, sm->max / 1000.0,
        sm->mean / 1000.0);
    fflush(summary_f);
}

void
summary_csv_value(const char *section, const char *metric, double value, const char *unit)
{
    if (summary_f == NULL)
        return;
    fprintf(summary_f, "%s,%s,,,,,,,%.3f,%s\n", section, metric, value, unit);
    fflush(summary_f);
}

void
summary_csv_close(void)
{
    csv_close(summary_f, "summary.csv");
    summary_f = NULL;
}
