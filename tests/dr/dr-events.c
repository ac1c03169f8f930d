/*
 * dr-events.c - test helper of tests/dr: reads zkelectd event logs ([log]
 * events: one JSON object per line with mono_ms, node, event, subject, epoch)
 * and checks the safety properties of an election, or finds events in them.
 *
 *   dr-events now
 *       print CLOCK_MONOTONIC in milliseconds: the clock of mono_ms, so the
 *       test script can stamp what it does (a kill -9) on the same time line
 *   dr-events check [-v] [-r] [-x EXITS] [-e END_MS] FILE...
 *       build every node's READY intervals and check that no two of them
 *       (of different nodes) overlap, that no node is READY twice at once,
 *       and that the epochs of the +ready events strictly increase in time
 *       order; exit 0 when all hold, 1 with one line per violation. With -r
 *       a node READY again at the epoch of the +ready just before, its own,
 *       is no violation (a leader whose leader znode a foreign client
 *       deleted takes over again under the same decision)
 *   dr-events gap [-x EXITS] [-e END_MS] FROM_MS TO_MS FILE...
 *       print "LONGEST_MS START_MS END_MS": the longest stretch of
 *       [FROM_MS, TO_MS] in which no node was READY (0 FROM FROM if none)
 *   dr-events list [-n NODE] [-s SUBJECT] [-a AFTER_MS] [-E EVENT[,EVENT...]] FILE...
 *       print the matching events in time order, one per line:
 *       "MONO_MS NODE EVENT SUBJECT EPOCH" (SUBJECT "-" when none)
 *   dr-events slots < LEADER_JSON
 *       read `zkelect leader --json` (or `zkelect status --json`) on stdin and
 *       print one line per slot, slot 0 first: "SLOT ID STATUS EPOCH
 *       ELECTED_ID ELECTED_EPOCH" (ID and ELECTED_ID "-" when none); a group
 *       with one leader (no "slots") gives slot 0's line from the top level
 *   dr-events epochs < HISTORY_JSON
 *       read `zkelect history --json` on stdin and print "EPOCH SLOT LEADER"
 *       per entry (SLOT 0 when the entry has none, LEADER "-" when null):
 *       every epoch a decision gave and the slot it was given in, so a
 *       hook's stamp (its ZKELECT_EPOCH) can be put in its slot
 *
 * A READY interval of a node starts at its +ready (or +resumed) and ends at
 * its next -stepdown, -suspended, -leadership-lost or -fenced (a leader that
 * heard nothing from ZooKeeper for fence_ms steps down), or when its process
 * ended: EXITS is a file of "NODE MONO_MS" lines the script appends when it
 * kills or stops a daemon (a killed process writes no event). An interval
 * still open at the end of the logs ends at END_MS (default: now).
 *
 * Lines are appended by the daemons with one write(2) each; a last line
 * without its newline is being written and is skipped. Anything else that
 * does not parse is an error naming the file and the line (exit 2).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#define DR_ID_MAX   64                  /* node ids: 1..64 characters */
#define DR_NAME_MAX 31                  /* event names */
#define DR_LINE_MAX 65536               /* longest event-log line */

enum dr_kind {
    DR_EVENT = 0,                       /* a line of an event log */
    DR_EXIT = 1                         /* a process end from EXITS (sorts after
                                           events of the same millisecond) */
};

struct dr_ev {
    int64_t ms;                         /* mono_ms */
    enum dr_kind kind;                  /* event or process end */
    size_t seq;                         /* load order: file order within a file */
    char node[DR_ID_MAX + 1];           /* the node whose log it is */
    char event[DR_NAME_MAX + 1];        /* "+ready", ... ("exit" for DR_EXIT) */
    char subject[DR_ID_MAX + 1];        /* the event's subject, "" when none */
    uint64_t epoch;                     /* the event's epoch, 0 when none */
};

struct dr_iv {
    char node[DR_ID_MAX + 1];           /* the READY node */
    int64_t from_ms, to_ms;             /* [from, to) */
    uint64_t epoch;                     /* the epoch it led */
    const char *end;                    /* what ended it ("open" at the end) */
};

struct dr_set {
    struct dr_ev *ev;                   /* every event and exit; owned */
    size_t nev, cap;
};

static const char *progname = "dr-events";

static int64_t
dr_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
dr_parse_ms(const char *s, const char *what, int64_t *out)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 0) {
        fprintf(stderr, "%s: %s: '%s' is not a time in milliseconds\n", progname, what, s);
        return -1;
    }
    *out = v;
    return 0;
}

static struct dr_ev *
dr_push(struct dr_set *s)
{
    struct dr_ev *n;

    if (s->nev == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        if ((n = realloc(s->ev, cap * sizeof(*n))) == NULL) {
            fprintf(stderr, "%s: out of memory\n", progname);
            return NULL;
        }
        s->ev = n;
        s->cap = cap;
    }
    n = &s->ev[s->nev];
    memset(n, 0, sizeof(*n));
    n->seq = s->nev++;
    return n;
}

/* Copy the string member key of o into buf; missing or null gives "". */
static int
dr_str(const cJSON *o, const char *key, bool required, char *buf, size_t len,
       const char *file, unsigned line)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    buf[0] = '\0';
    if (v == NULL || cJSON_IsNull(v)) {
        if (!required)
            return 0;
        fprintf(stderr, "%s: %s:%u: field \"%s\" is missing\n", progname, file, line, key);
        return -1;
    }
    if (!cJSON_IsString(v) || strlen(v->valuestring) >= len) {
        fprintf(stderr, "%s: %s:%u: field \"%s\" is not a string of at most %zu "
                "characters\n", progname, file, line, key, len - 1);
        return -1;
    }
    memcpy(buf, v->valuestring, strlen(v->valuestring) + 1);
    return 0;
}

static int
dr_num(const cJSON *o, const char *key, double *out, const char *file, unsigned line)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 9007199254740992.0) {
        fprintf(stderr, "%s: %s:%u: field \"%s\" is %s\n", progname, file, line, key,
                v == NULL ? "missing" : "not a non-negative number");
        return -1;
    }
    *out = v->valuedouble;
    return 0;
}

/* Load one event log. */
static int
dr_load_log(struct dr_set *s, const char *file)
{
    FILE *f = fopen(file, "r");
    char *buf = NULL;
    unsigned line = 0;
    int rc = -1;

    if (f == NULL) {
        fprintf(stderr, "%s: %s: %s\n", progname, file, strerror(errno));
        return -1;
    }
    if ((buf = malloc(DR_LINE_MAX)) == NULL) {
        fprintf(stderr, "%s: out of memory\n", progname);
        goto out;
    }
    while (fgets(buf, DR_LINE_MAX, f) != NULL) {
        size_t n = strlen(buf);
        cJSON *o;
        struct dr_ev *e;
        double ms, epoch;

        line++;
        if (n == 0 || buf[n - 1] != '\n') {
            if (n == DR_LINE_MAX - 1) {
                fprintf(stderr, "%s: %s:%u: line longer than %d bytes\n", progname, file,
                        line, DR_LINE_MAX - 2);
                goto out;
            }
            break;                      /* being written: not an event yet */
        }
        buf[--n] = '\0';
        if (n == 0)
            continue;
        if ((o = cJSON_Parse(buf)) == NULL || !cJSON_IsObject(o)) {
            fprintf(stderr, "%s: %s:%u: not a JSON object: %.80s\n", progname, file, line, buf);
            cJSON_Delete(o);
            goto out;
        }
        if ((e = dr_push(s)) == NULL) {
            cJSON_Delete(o);
            goto out;
        }
        e->kind = DR_EVENT;
        if (dr_num(o, "mono_ms", &ms, file, line) != 0 ||
            dr_num(o, "epoch", &epoch, file, line) != 0 ||
            dr_str(o, "node", true, e->node, sizeof(e->node), file, line) != 0 ||
            dr_str(o, "event", true, e->event, sizeof(e->event), file, line) != 0 ||
            dr_str(o, "subject", false, e->subject, sizeof(e->subject), file, line) != 0) {
            cJSON_Delete(o);
            goto out;
        }
        e->ms = (int64_t)ms;
        e->epoch = (uint64_t)epoch;
        cJSON_Delete(o);
    }
    if (ferror(f)) {
        fprintf(stderr, "%s: %s: read error\n", progname, file);
        goto out;
    }
    rc = 0;
out:
    free(buf);
    fclose(f);
    return rc;
}

/* Load EXITS: "NODE MONO_MS" lines. */
static int
dr_load_exits(struct dr_set *s, const char *file)
{
    FILE *f = fopen(file, "r");
    char buf[256], node[DR_ID_MAX + 2], ms[32], extra[2];
    unsigned line = 0;
    int64_t v;

    if (f == NULL) {
        if (errno == ENOENT)
            return 0;                   /* nothing was killed or stopped yet */
        fprintf(stderr, "%s: %s: %s\n", progname, file, strerror(errno));
        return -1;
    }
    while (fgets(buf, sizeof(buf), f) != NULL) {
        struct dr_ev *e;

        line++;
        if (sscanf(buf, "%65s %31s %1s", node, ms, extra) != 2 || strlen(node) > DR_ID_MAX ||
            dr_parse_ms(ms, "exit time", &v) != 0) {
            fprintf(stderr, "%s: %s:%u: expected \"NODE MONO_MS\"\n", progname, file, line);
            fclose(f);
            return -1;
        }
        if ((e = dr_push(s)) == NULL) {
            fclose(f);
            return -1;
        }
        e->kind = DR_EXIT;
        e->ms = v;
        memcpy(e->node, node, strlen(node) + 1);
        snprintf(e->event, sizeof(e->event), "exit");
    }
    fclose(f);
    return 0;
}

/* Time order; at the same millisecond events before exits, then load order. */
static int
dr_ev_cmp(const void *a, const void *b)
{
    const struct dr_ev *x = a, *y = b;

    if (x->ms != y->ms)
        return x->ms < y->ms ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
dr_iv_cmp(const void *a, const void *b)
{
    const struct dr_iv *x = a, *y = b;

    if (x->from_ms != y->from_ms)
        return x->from_ms < y->from_ms ? -1 : 1;
    return strcmp(x->node, y->node);
}

static bool
dr_ends_ready(const char *ev)
{
    return strcmp(ev, "-stepdown") == 0 || strcmp(ev, "-suspended") == 0 ||
           strcmp(ev, "-leadership-lost") == 0 || strcmp(ev, "-fenced") == 0 ||
           strcmp(ev, "exit") == 0;
}

/*
 * Build the READY intervals of every node (sorted by start) from the sorted
 * events; report a node that is READY twice at once. *violations counts.
 */
static struct dr_iv *
dr_intervals(const struct dr_set *s, int64_t end_ms, size_t *niv, int *violations)
{
    struct dr_iv *iv = NULL, *open_iv;
    size_t i, j, n = 0;

    *niv = 0;
    if (s->nev > 0 && (iv = calloc(s->nev, sizeof(*iv))) == NULL) {
        fprintf(stderr, "%s: out of memory\n", progname);
        return NULL;
    }
    for (i = 0; i < s->nev; i++) {
        const struct dr_ev *e = &s->ev[i];

        open_iv = NULL;
        for (j = 0; j < n; j++)
            if (iv[j].end == NULL && strcmp(iv[j].node, e->node) == 0)
                open_iv = &iv[j];
        if (strcmp(e->event, "+ready") == 0 || strcmp(e->event, "+resumed") == 0) {
            if (open_iv != NULL) {
                if (strcmp(e->event, "+resumed") == 0)
                    continue;           /* READY already: nothing new */
                printf("VIOLATION: %s: +ready at %" PRId64 " (epoch %" PRIu64 ") while "
                       "already READY since %" PRId64 " (epoch %" PRIu64 ")\n", e->node,
                       e->ms, e->epoch, open_iv->from_ms, open_iv->epoch);
                (*violations)++;
                open_iv->to_ms = e->ms;
                open_iv->end = "+ready again";
            }
            snprintf(iv[n].node, sizeof(iv[n].node), "%s", e->node);
            iv[n].from_ms = e->ms;
            iv[n].epoch = e->epoch;
            iv[n].end = NULL;
            n++;
        } else if (open_iv != NULL && dr_ends_ready(e->event)) {
            open_iv->to_ms = e->ms;
            open_iv->end = strcmp(e->event, "exit") == 0 ? "process ended" : e->event;
        }
    }
    for (j = 0; j < n; j++)
        if (iv[j].end == NULL) {
            iv[j].to_ms = end_ms > iv[j].from_ms ? end_ms : iv[j].from_ms;
            iv[j].end = "open";
        }
    qsort(iv, n, sizeof(*iv), dr_iv_cmp);
    *niv = n;
    return iv;
}

static int
dr_load(struct dr_set *s, const char *exits, char **files, int nfiles)
{
    int i;

    for (i = 0; i < nfiles; i++)
        if (dr_load_log(s, files[i]) != 0)
            return -1;
    if (exits != NULL && dr_load_exits(s, exits) != 0)
        return -1;
    if (s->nev > 0)
        qsort(s->ev, s->nev, sizeof(*s->ev), dr_ev_cmp);
    return 0;
}

static int
cmd_check(int argc, char **argv)
{
    struct dr_set s = { NULL, 0, 0 };
    struct dr_iv *iv = NULL;
    const char *exits = NULL;
    int64_t end_ms = -1, max_to = 0;
    uint64_t last_epoch = 0, first_epoch = 0;
    size_t niv = 0, i, nready = 0, max_i = 0;
    int c, violations = 0, rc = 2;
    bool verbose = false, repeat_ok = false;
    const char *last_node = "";

    while ((c = getopt(argc, argv, "+vrx:e:")) != -1) {
        switch (c) {
        case 'v':
            verbose = true;
            break;
        case 'r':
            repeat_ok = true;
            break;
        case 'x':
            exits = optarg;
            break;
        case 'e':
            if (dr_parse_ms(optarg, "-e", &end_ms) != 0)
                return 2;
            break;
        default:
            return 2;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "usage: %s check [-v] [-r] [-x EXITS] [-e END_MS] FILE...\n", progname);
        return 2;
    }
    if (end_ms < 0)
        end_ms = dr_now_ms();
    if (dr_load(&s, exits, argv + optind, argc - optind) != 0)
        goto out;
    if ((iv = dr_intervals(&s, end_ms, &niv, &violations)) == NULL && s.nev > 0)
        goto out;

    /* at most one READY node at any instant */
    for (i = 0; i < niv; i++) {
        if (verbose)
            printf("READY %s epoch %" PRIu64 " from %" PRId64 " to %" PRId64 " (%" PRId64
                   " ms, ended by %s)\n", iv[i].node, iv[i].epoch, iv[i].from_ms, iv[i].to_ms,
                   iv[i].to_ms - iv[i].from_ms, iv[i].end);
        if (i > 0 && iv[i].from_ms < max_to && strcmp(iv[i].node, iv[max_i].node) != 0) {
            printf("VIOLATION: two READY leaders: %s READY from %" PRId64 " (epoch %" PRIu64
                   ") while %s was READY from %" PRId64 " to %" PRId64 " (epoch %" PRIu64
                   ", ended by %s): %" PRId64 " ms of overlap\n", iv[i].node, iv[i].from_ms,
                   iv[i].epoch, iv[max_i].node, iv[max_i].from_ms, iv[max_i].to_ms,
                   iv[max_i].epoch, iv[max_i].end,
                   (iv[i].to_ms < max_to ? iv[i].to_ms : max_to) - iv[i].from_ms);
            violations++;
        }
        if (i == 0 || iv[i].to_ms > max_to) {
            max_to = iv[i].to_ms;
            max_i = i;
        }
    }
    /* the epochs of +ready strictly increase in time order */
    for (i = 0; i < s.nev; i++) {
        const struct dr_ev *e = &s.ev[i];

        if (e->kind != DR_EVENT || strcmp(e->event, "+ready") != 0)
            continue;
        if (nready == 0)
            first_epoch = e->epoch;
        else if (e->epoch < last_epoch ||
                 (e->epoch == last_epoch && !(repeat_ok && strcmp(e->node, last_node) == 0))) {
            printf("VIOLATION: epochs not increasing: %s +ready at %" PRId64 " with epoch %"
                   PRIu64 " after a +ready with epoch %" PRIu64 "\n", e->node, e->ms, e->epoch,
                   last_epoch);
            violations++;
        }
        last_epoch = e->epoch;
        last_node = e->node;
        nready++;
    }
    printf("%s: %zu READY intervals, %zu +ready events (epochs %" PRIu64 "..%" PRIu64 "): %s\n",
           progname, niv, nready, first_epoch, last_epoch,
           violations ? "VIOLATIONS" : "never two READY leaders, epochs increasing");
    rc = violations ? 1 : 0;
out:
    free(iv);
    free(s.ev);
    return rc;
}

static int
cmd_gap(int argc, char **argv)
{
    struct dr_set s = { NULL, 0, 0 };
    struct dr_iv *iv = NULL;
    const char *exits = NULL;
    int64_t end_ms = -1, from, to, covered, best = 0, best_from, best_to;
    size_t niv = 0, i;
    int c, violations = 0, rc = 2;

    while ((c = getopt(argc, argv, "+x:e:")) != -1) {
        switch (c) {
        case 'x':
            exits = optarg;
            break;
        case 'e':
            if (dr_parse_ms(optarg, "-e", &end_ms) != 0)
                return 2;
            break;
        default:
            return 2;
        }
    }
    if (argc - optind < 3) {
        fprintf(stderr, "usage: %s gap [-x EXITS] [-e END_MS] FROM_MS TO_MS FILE...\n",
                progname);
        return 2;
    }
    if (dr_parse_ms(argv[optind], "FROM_MS", &from) != 0 ||
        dr_parse_ms(argv[optind + 1], "TO_MS", &to) != 0)
        return 2;
    if (to < from) {
        fprintf(stderr, "%s: gap: TO_MS %" PRId64 " is before FROM_MS %" PRId64 "\n",
                progname, to, from);
        return 2;
    }
    if (end_ms < 0)
        end_ms = dr_now_ms();
    if (dr_load(&s, exits, argv + optind + 2, argc - optind - 2) != 0)
        goto out;
    if ((iv = dr_intervals(&s, end_ms, &niv, &violations)) == NULL && s.nev > 0)
        goto out;
    /* walk the intervals in start order; covered = end of READY so far */
    best_from = best_to = from;
    covered = from;
    for (i = 0; i < niv && covered < to; i++) {
        if (iv[i].to_ms <= covered)
            continue;
        if (iv[i].from_ms > covered) {
            int64_t gap_to = iv[i].from_ms < to ? iv[i].from_ms : to;
            if (gap_to - covered > best) {
                best = gap_to - covered;
                best_from = covered;
                best_to = gap_to;
            }
        }
        covered = iv[i].to_ms;
    }
    if (covered < to && to - covered > best) {
        best = to - covered;
        best_from = covered;
        best_to = to;
    }
    printf("%" PRId64 " %" PRId64 " %" PRId64 "\n", best, best_from, best_to);
    rc = 0;
out:
    free(iv);
    free(s.ev);
    return rc;
}

/* Non-zero when name is in the comma-separated list (NULL: any). */
static bool
dr_in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    const char *p;

    if (list == NULL)
        return true;
    for (p = list; *p; ) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    return false;
}

static int
cmd_list(int argc, char **argv)
{
    struct dr_set s = { NULL, 0, 0 };
    const char *node = NULL, *subject = NULL, *events = NULL;
    int64_t after = 0;
    size_t i;
    int c;

    while ((c = getopt(argc, argv, "+n:s:a:E:")) != -1) {
        switch (c) {
        case 'n':
            node = optarg;
            break;
        case 's':
            subject = optarg;
            break;
        case 'a':
            if (dr_parse_ms(optarg, "-a", &after) != 0)
                return 2;
            break;
        case 'E':
            events = optarg;
            break;
        default:
            return 2;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "usage: %s list [-n NODE] [-s SUBJECT] [-a AFTER_MS] "
                "[-E EVENT[,EVENT...]] FILE...\n", progname);
        return 2;
    }
    if (dr_load(&s, NULL, argv + optind, argc - optind) != 0) {
        free(s.ev);
        return 2;
    }
    for (i = 0; i < s.nev; i++) {
        const struct dr_ev *e = &s.ev[i];

        if (e->ms < after || (node && strcmp(e->node, node) != 0) ||
            (subject && strcmp(e->subject, subject) != 0) || !dr_in_list(events, e->event))
            continue;
        printf("%" PRId64 " %s %s %s %" PRIu64 "\n", e->ms, e->node, e->event,
               *e->subject ? e->subject : "-", e->epoch);
    }
    free(s.ev);
    return 0;
}

/* All of stdin (NUL-terminated, heap), or NULL with a message. */
static char *
dr_read_stdin(void)
{
    size_t n = 0, cap = 0, r;
    char *buf = NULL, *nb;

    do {
        if (cap - n < 4096) {
            cap = cap ? cap * 2 : 65536;
            if ((nb = realloc(buf, cap + 1)) == NULL) {
                fprintf(stderr, "%s: out of memory\n", progname);
                free(buf);
                return NULL;
            }
            buf = nb;
        }
        r = fread(buf + n, 1, cap - n, stdin);
        n += r;
    } while (r > 0);
    if (ferror(stdin)) {
        fprintf(stderr, "%s: stdin: read error\n", progname);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* stdin as one JSON value of type TYPE (cJSON_Object, cJSON_Array), or NULL. */
static cJSON *
dr_stdin_json(int type, const char *what)
{
    char *buf = dr_read_stdin();
    cJSON *o;

    if (buf == NULL)
        return NULL;
    o = cJSON_Parse(buf);
    free(buf);
    if (o == NULL || (o->type & 0xff) != type) {
        fprintf(stderr, "%s: stdin is not %s\n", progname, what);
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* A string member ("-" when missing, null or not a string). */
static const char *
dr_jstr(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    return cJSON_IsString(v) && *v->valuestring ? v->valuestring : "-";
}

/* A number member (0 when missing or not a number). */
static uint64_t
dr_jnum(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    return cJSON_IsNumber(v) && v->valuedouble >= 0 ? (uint64_t)v->valuedouble : 0;
}

/* One "SLOT ID STATUS EPOCH ELECTED_ID ELECTED_EPOCH" line of slot object o. */
static void
dr_print_slot(int slot, const cJSON *o)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "elected");

    printf("%d %s %s %" PRIu64 " %s %" PRIu64 "\n", slot, dr_jstr(o, "id"),
           dr_jstr(o, "status"), dr_jnum(o, "epoch"),
           cJSON_IsObject(e) ? dr_jstr(e, "id") : "-", cJSON_IsObject(e) ? dr_jnum(e, "epoch") : 0);
}

static int
cmd_slots(void)
{
    cJSON *o = dr_stdin_json(cJSON_Object, "a JSON object (zkelect leader --json)"), *l, *s;
    int k = 0;

    if (o == NULL)
        return 2;
    /* status --json has the leader's fields in "leader", leader --json at the top */
    l = cJSON_GetObjectItemCaseSensitive(o, "leader");
    if (!cJSON_IsObject(l))
        l = o;
    s = cJSON_GetObjectItemCaseSensitive(o, "slots");
    if (!cJSON_IsArray(s)) {
        dr_print_slot(0, l);
    } else {
        cJSON_ArrayForEach(l, s) {
            dr_print_slot(cJSON_HasObjectItem(l, "slot") ? (int)dr_jnum(l, "slot") : k, l);
            k++;
        }
    }
    cJSON_Delete(o);
    return 0;
}

static int
cmd_epochs(void)
{
    cJSON *a = dr_stdin_json(cJSON_Array, "a JSON array (zkelect history --json)"), *e;

    if (a == NULL)
        return 2;
    cJSON_ArrayForEach(e, a)
        printf("%" PRIu64 " %" PRIu64 " %s\n", dr_jnum(e, "epoch"), dr_jnum(e, "slot"),
               dr_jstr(e, "leader"));
    cJSON_Delete(a);
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "now") == 0 && argc == 2) {
        printf("%" PRId64 "\n", dr_now_ms());
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "check") == 0)
        return cmd_check(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "gap") == 0)
        return cmd_gap(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "list") == 0)
        return cmd_list(argc - 1, argv + 1);
    if (argc == 2 && strcmp(argv[1], "slots") == 0)
        return cmd_slots();
    if (argc == 2 && strcmp(argv[1], "epochs") == 0)
        return cmd_epochs();
    fprintf(stderr, "usage: %s now | check [-v] [-x EXITS] [-e END_MS] FILE... |\n"
            "       gap [-x EXITS] [-e END_MS] FROM_MS TO_MS FILE... |\n"
            "       list [-n NODE] [-s SUBJECT] [-a AFTER_MS] [-E EVENT[,EVENT...]] FILE... |\n"
            "       slots < LEADER_JSON | epochs < HISTORY_JSON\n",
            progname);
    return 2;
}
