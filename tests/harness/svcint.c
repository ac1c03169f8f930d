/*
 * svcint.c - service intervals from the hooks' own stamps, and their
 * overlaps (svcint.h).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "svcint.h"

struct svc_iv {                         /* one node's service interval */
    const char *node;
    int64_t from_us, to_us;
    int64_t epoch;
    int open;                           /* no end stamp: lasts to the end */
};

int
svc_parse_ms(const char *s, int64_t *us)
{
    int64_t ms = 0, frac = 0;
    int digits = 0, fdigits = 0;

    for (; isdigit((unsigned char)*s); s++, digits++) {
        if (ms > (INT64_MAX / 1000 - 9) / 10)
            return -1;
        ms = ms * 10 + (*s - '0');
    }
    if (digits == 0)
        return -1;
    if (*s == '.') {
        for (s++; isdigit((unsigned char)*s); s++, fdigits++) {
            if (fdigits >= 6)
                return -1;
            frac = frac * 10 + (*s - '0');
        }
        if (fdigits == 0)
            return -1;
    }
    if (*s != '\0')
        return -1;
    for (; fdigits < 3; fdigits++)
        frac *= 10;
    for (; fdigits > 3; fdigits--)
        frac /= 10;     /* below a microsecond: not kept */
    *us = ms * 1000 + frac;
    return 0;
}

int
svc_add_line(struct svc *s, const char *line, size_t lineno, char *err, size_t errlen)
{
    char buf[256], shown[256], *f[5], *p, *save = NULL;
    struct svc_stamp *st;
    int nf = 0;
    char *end;

    if (strlen(line) >= sizeof buf) {
        snprintf(err, errlen, "line %zu: longer than %zu characters", lineno, sizeof buf - 1);
        return -1;
    }
    strcpy(buf, line);
    buf[strcspn(buf, "\r\n")] = '\0';
    strcpy(shown, buf);
    for (p = strtok_r(buf, " \t", &save); p != NULL; p = strtok_r(NULL, " \t", &save)) {
        if (nf == 5)
            break;
        f[nf++] = p;
    }
    if (nf == 0 || f[0][0] == '#')
        return 0;       /* blank or a comment */
    if (nf != 4) {
        snprintf(err, errlen, "line %zu: %d fields, expected 4 (NODE start|end MONO EPOCH): \"%s\"",
            lineno, nf, shown);
        return -1;
    }
    if (strlen(f[0]) >= SVC_NODE_MAX) {
        snprintf(err, errlen, "line %zu: node id longer than %d characters", lineno,
            SVC_NODE_MAX - 1);
        return -1;
    }
    if (strcmp(f[1], "start") != 0 && strcmp(f[1], "end") != 0) {
        snprintf(err, errlen, "line %zu: \"%s\" is neither start nor end", lineno, f[1]);
        return -1;
    }
    if (s->nst == s->cst) {
        size_t c = s->cst ? 2 * s->cst : 64;
        void *n = realloc(s->st, c * sizeof *s->st);

        if (n == NULL) {
            snprintf(err, errlen, "line %zu: out of memory", lineno);
            return -1;
        }
        s->st = n;
        s->cst = c;
    }
    st = &s->st[s->nst];
    memset(st, 0, sizeof *st);
    if (svc_parse_ms(f[2], &st->at_us) < 0) {
        snprintf(err, errlen, "line %zu: \"%s\" is not a time in milliseconds (like 12345.678)",
            lineno, f[2]);
        return -1;
    }
    if (strcmp(f[3], "-") == 0) {
        st->epoch = -1;
    } else {
        errno = 0;
        st->epoch = strtoll(f[3], &end, 10);
        if (errno != 0 || *end != '\0' || !isdigit((unsigned char)f[3][0])) {
            snprintf(err, errlen, "line %zu: \"%s\" is not an epoch (a number or -)", lineno, f[3]);
            return -1;
        }
    }
    strcpy(st->node, f[0]);
    st->end = strcmp(f[1], "end") == 0;
    st->line = lineno;
    s->nst++;
    return 0;
}

int
svc_load(struct svc *s, const char *path, int missing_ok, char *err, size_t errlen)
{
    char line[512], why[300];
    size_t lineno = 0;
    FILE *fp;

    if ((fp = fopen(path, "r")) == NULL) {
        if (errno == ENOENT && missing_ok)
            return 0;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof line, fp) != NULL) {
        lineno++;
        if (strchr(line, '\n') == NULL && !feof(fp)) {
            snprintf(err, errlen, "%s:%zu: line too long", path, lineno);
            fclose(fp);
            return -1;
        }
        if (svc_add_line(s, line, lineno, why, sizeof why) < 0) {
            /* "line N: why" -> "PATH:N: why" */
            snprintf(err, errlen, "%s:%s", path, why + strlen("line "));
            fclose(fp);
            return -1;
        }
    }
    if (ferror(fp)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        fclose(fp);
        return -1;
    }
    fclose(fp);
    return 0;
}

int
svc_frozen(struct svc *s, const char *node, int64_t from_us, int64_t to_us)
{
    if (s->nwin == s->cwin) {
        size_t c = s->cwin ? 2 * s->cwin : 16;
        void *n = realloc(s->win, c * sizeof *s->win);

        if (n == NULL)
            return -1;
        s->win = n;
        s->cwin = c;
    }
    snprintf(s->win[s->nwin].node, SVC_NODE_MAX, "%s", node);
    s->win[s->nwin].from_us = from_us;
    s->win[s->nwin].to_us = to_us;
    s->nwin++;
    return 0;
}

/* By node, then time, then line: each node's stamps in order. */
static int
stamp_cmp(const void *a, const void *b)
{
    const struct svc_stamp *x = *(struct svc_stamp *const *)a;
    const struct svc_stamp *y = *(struct svc_stamp *const *)b;
    int c = strcmp(x->node, y->node);

    if (c != 0)
        return c;
    if (x->at_us != y->at_us)
        return x->at_us < y->at_us ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

struct span {
    int64_t a, b;
};

static int
span_cmp(const void *x, const void *y)
{
    const struct span *p = x, *q = y;

    return p->a < q->a ? -1 : p->a > q->a;
}

/*
 * How much of [a, b] lies inside the frozen windows (+ bound) of N1 or N2.
 * -1 when out of memory.
 */
static int64_t
covered(const struct svc *s, const char *n1, const char *n2, int64_t a, int64_t b,
    int64_t bound_us)
{
    struct span *sp;
    size_t i, n = 0;
    int64_t sum = 0, cur_a = 0, cur_b = 0;
    int have = 0;

    if (s->nwin == 0)
        return 0;
    if ((sp = calloc(s->nwin, sizeof *sp)) == NULL)
        return -1;
    for (i = 0; i < s->nwin; i++) {
        const struct svc_win *w = &s->win[i];
        int64_t wa = w->from_us, wb = w->to_us + bound_us;

        if (strcmp(w->node, n1) != 0 && strcmp(w->node, n2) != 0)
            continue;
        if (wa < a)
            wa = a;
        if (wb > b)
            wb = b;
        if (wb > wa)
            sp[n++] = (struct span){ wa, wb };
    }
    if (n > 0)
        qsort(sp, n, sizeof *sp, span_cmp);
    for (i = 0; i < n; i++) {
        if (have && sp[i].a <= cur_b) {
            if (sp[i].b > cur_b)
                cur_b = sp[i].b;
            continue;
        }
        if (have)
            sum += cur_b - cur_a;
        cur_a = sp[i].a;
        cur_b = sp[i].b;
        have = 1;
    }
    if (have)
        sum += cur_b - cur_a;
    free(sp);
    return sum;
}

static void
put_ms(FILE *out, int64_t us)
{
    fprintf(out, "%s%" PRId64 ".%03" PRId64, us < 0 ? "-" : "",
        (us < 0 ? -us : us) / 1000, (us < 0 ? -us : us) % 1000);
}

/* A time: absolute milliseconds, or "+S.sss s" after the origin. */
static void
put_t(FILE *out, const struct svc *s, int64_t us)
{
    if (s->origin_us <= 0) {
        put_ms(out, us);
        return;
    }
    us -= s->origin_us;
    fprintf(out, "%s%" PRId64 ".%03" PRId64 " s", us < 0 ? "-" : "+",
        (us < 0 ? -us : us) / 1000000, (us < 0 ? -us : us) / 1000 % 1000);
}

static void
put_iv(FILE *out, const struct svc *s, const struct svc_iv *v)
{
    fprintf(out, "%s [", v->node);
    put_t(out, s, v->from_us);
    fputs(" - ", out);
    if (v->open)
        fputs("still active", out);
    else
        put_t(out, s, v->to_us);
    if (v->epoch >= 0)
        fprintf(out, ", epoch %" PRId64 "]", v->epoch);
    else
        fputs("]", out);
}

int
svc_check(const struct svc *s, int64_t end_us, int64_t bound_us, FILE *out,
    struct svc_figures *fig)
{
    const struct svc_stamp **ord = NULL;
    struct svc_iv *iv = NULL;
    size_t i, j, niv = 0;
    int rc = -1;

    memset(fig, 0, sizeof *fig);
    if (s->nst > 0 &&
        ((ord = calloc(s->nst, sizeof *ord)) == NULL || (iv = calloc(s->nst, sizeof *iv)) == NULL))
        goto out;
    for (i = 0; i < s->nst; i++)
        ord[i] = &s->st[i];
    if (s->nst > 0)
        qsort(ord, s->nst, sizeof *ord, stamp_cmp); /* (NULL, 0) is undefined */
    /*
     * A start opens an interval unless one is open (a takeover hook started
     * again without a stepdown in between: the service never stopped); an
     * end closes the open one, and an end with none open (a stepdown hook
     * after a takeover that never started its hook) is nothing.
     */
    for (i = 0; i < s->nst; i++) {
        const struct svc_stamp *st = ord[i];
        struct svc_iv *cur = niv > 0 && iv[niv - 1].open &&
            strcmp(iv[niv - 1].node, st->node) == 0 ? &iv[niv - 1] : NULL;

        if (!st->end && cur == NULL) {
            iv[niv++] = (struct svc_iv){ st->node, st->at_us, end_us, st->epoch, 1 };
        } else if (st->end && cur != NULL) {
            cur->to_us = st->at_us;
            cur->open = 0;
        }
    }
    fig->intervals = (int)niv;
    for (i = 0; i < niv; i++) {
        for (j = i + 1; j < niv; j++) {
            int64_t a, b, len, cov;

            if (strcmp(iv[i].node, iv[j].node) == 0)
                continue;
            a = iv[i].from_us > iv[j].from_us ? iv[i].from_us : iv[j].from_us;
            b = iv[i].to_us < iv[j].to_us ? iv[i].to_us : iv[j].to_us;
            if (b <= a)
                continue;
            len = b - a;
            if ((cov = covered(s, iv[i].node, iv[j].node, a, b, bound_us)) < 0)
                goto out;
            fig->overlaps++;
            if (len > fig->longest_us)
                fig->longest_us = len;
            if (len - cov > fig->longest_outside_us)
                fig->longest_outside_us = len - cov;
            if (len - cov > 0)
                fig->violations++;
            if (out == NULL)
                continue;
            fputs(len - cov > 0 ? "VIOLATION: two services active: " : "allowed: ", out);
            put_iv(out, s, &iv[i]);
            fputs(" and ", out);
            put_iv(out, s, &iv[j]);
            fputs(" overlap ", out);
            put_ms(out, len);
            fputs(" ms (", out);
            put_t(out, s, a);
            fputs(" - ", out);
            put_t(out, s, b);
            fputs("), ", out);
            put_ms(out, len - cov);
            fputs(" ms outside frozen windows", out);
            if (cov > 0) {
                fputs(" (each + ", out);
                put_ms(out, bound_us);
                fputs(" ms)", out);
            }
            fputs("\n", out);
        }
    }
    rc = fig->violations;
out:
    free(ord);
    free(iv);
    return rc;
}

void
svc_summary(const struct svc_figures *fig, FILE *out)
{
    fprintf(out, "service: %d intervals, longest overlap ", fig->intervals);
    put_ms(out, fig->longest_us);
    fputs(" ms (", out);
    put_ms(out, fig->longest_outside_us);
    fputs(" ms outside frozen windows)\n", out);
}

void
svc_free(struct svc *s)
{
    free(s->st);
    free(s->win);
    memset(s, 0, sizeof *s);
}
