/*
 * policy.c - the policy plugin loader: find a module, dlopen() it, check its
 * descriptor against the ABI (include/zkelect/policy.h), run init(), and
 * validate every choice it makes.
 *
 * Sections, in order: the handle, messages, finding the file, loading and
 * checking the descriptor, choosing, accessors and unload.
 */
#include "config.h"

#include <sys/stat.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zkelect.h"
#include "policy.h"

#ifndef ZKELECT_POLICYDIR
#error "ZKELECT_POLICYDIR must be defined (Makefile.am passes the installed policy dir)"
#endif

#define POLICY_NAME_MAX  64     /* longest policy name, bytes */
#define POLICY_ENV       "ZKELECT_POLICY_PATH"

/* The size of the ABI 1.0 descriptor: every field up to and including choose. */
#define POLICY_DESC_SIZE_1_0                                                  \
    (offsetof(struct zkelect_policy, choose) +                                \
     sizeof(((struct zkelect_policy *)0)->choose))
/* The size of the ABI 1.1 descriptor: up to and including choose_set. */
#define POLICY_DESC_SIZE_1_1                                                  \
    (offsetof(struct zkelect_policy, choose_set) +                            \
     sizeof(((struct zkelect_policy *)0)->choose_set))

/* ------------------------------------------------------------------------
 * The handle
 */

struct zke_policy {
    void *dl;                     /* dlopen() handle; dlclose()d by unload */
    char *path;                   /* the file loaded; owned */
    const char *name;             /* descriptor name; the module's static storage */
    unsigned abi_minor;           /* the module's abi_minor */
    int (*init)(void **, const struct zkelect_option *, size_t,
                char *, size_t);  /* descriptor init(), copied */
    void (*fini)(void *);         /* descriptor fini(), copied */
    int (*choose)(void *, const struct zkelect_policy_input *,
                  struct zkelect_policy_output *); /* descriptor choose(), copied */
    int (*choose_set)(void *, const struct zkelect_policy_input *,
                      struct zkelect_policy_output *); /* ABI 1.1 choose_set(),
                                     copied; NULL for a 1.0 module or none */
    void *state;                  /* set by init(); the module's, freed by fini() */
};

/* ------------------------------------------------------------------------
 * Messages
 */

static void policy_msg(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Write one message into buf (may be NULL or len 0). */
static void
policy_msg(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;

    if (buf == NULL || len == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/*
 * Copy untrusted text (a module's message, a node id) into dst, at most
 * len - 1 bytes of src (src need not be NUL-terminated within srclen),
 * replacing control characters by '?'. dst is always NUL-terminated.
 */
static void
policy_clean(char *dst, size_t len, const char *src, size_t srclen)
{
    size_t i;

    if (len == 0)
        return;
    for (i = 0; i + 1 < len && i < srclen && src[i] != '\0'; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    dst[i] = '\0';
}

/* ------------------------------------------------------------------------
 * Finding the file
 */

/* Non-zero when name is a valid policy name: [a-z0-9_-]+, at most POLICY_NAME_MAX. */
static int
policy_name_valid(const char *name)
{
    size_t n;

    for (n = 0; name[n] != '\0'; n++) {
        char c = name[n];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return 0;
    }
    return n > 0 && n <= POLICY_NAME_MAX;
}

/* Non-zero when path names an existing regular file (symlinks followed). */
static int
policy_file_exists(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * Look for NAME.so in each directory of the colon-separated list dirs (may
 * be NULL). On a hit, set *found to a malloc'ed path and return 0. Append
 * every directory tried to tried (a NUL-terminated buffer of triedlen).
 * Returns ZKELECT_ENOTFOUND when no directory has the file, ZKELECT_ENOMEM.
 */
static int
policy_search(const char *name, const char *dirs, char **found, char *tried,
              size_t triedlen)
{
    const char *p, *end;
    size_t dlen, used;
    char *path;

    for (p = dirs; p != NULL && *p != '\0'; p = *end ? end + 1 : end) {
        end = strchr(p, ':');
        if (end == NULL)
            end = p + strlen(p);
        dlen = (size_t)(end - p);
        if (dlen == 0)
            continue;
        used = strlen(tried);
        if (used + 1 < triedlen)
            snprintf(tried + used, triedlen - used, "%s%.*s", used ? ", " : "",
                     (int)dlen, p);
        path = malloc(dlen + 1 + strlen(name) + sizeof(".so"));
        if (path == NULL)
            return ZKELECT_ENOMEM;
        sprintf(path, "%.*s/%s.so", (int)dlen, p, name);
        if (policy_file_exists(path)) {
            *found = path;
            return 0;
        }
        free(path);
    }
    return ZKELECT_ENOTFOUND;
}

/*
 * Resolve name_or_path to the file to load (malloc'ed in *found).
 * Order: search_path, $ZKELECT_POLICY_PATH, ZKELECT_POLICYDIR.
 */
static int
policy_find(const char *name_or_path, const char *search_path, char **found,
            char *err, size_t errlen)
{
    const char *lists[3];
    char tried[1024] = "";
    size_t i;
    int rc;

    *found = NULL;
    if (strchr(name_or_path, '/') != NULL) {
        if (!policy_file_exists(name_or_path)) {
            policy_msg(err, errlen, "policy module %s: no such file", name_or_path);
            return ZKELECT_ENOTFOUND;
        }
        if ((*found = strdup(name_or_path)) == NULL)
            return ZKELECT_ENOMEM;
        return 0;
    }
    if (!policy_name_valid(name_or_path)) {
        char clean[POLICY_NAME_MAX + 8];
        policy_clean(clean, sizeof(clean), name_or_path, strlen(name_or_path));
        policy_msg(err, errlen, "policy name '%s' is invalid: a name is 1 to %d "
                   "characters of [a-z0-9_-], or give a path containing '/'",
                   clean, POLICY_NAME_MAX);
        return ZKELECT_EINVAL;
    }
    lists[0] = search_path;
    lists[1] = secure_getenv(POLICY_ENV);
    lists[2] = ZKELECT_POLICYDIR;
    for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
        rc = policy_search(name_or_path, lists[i], found, tried, sizeof(tried));
        if (rc != ZKELECT_ENOTFOUND)
            return rc;
    }
    policy_msg(err, errlen, "policy module %s.so not found; directories tried: %s",
               name_or_path, tried[0] ? tried : "(none)");
    return ZKELECT_ENOTFOUND;
}

/* ------------------------------------------------------------------------
 * Loading and checking the descriptor
 */

/*
 * Check the descriptor and copy what the host uses into p. Every message
 * names the file.
 */
static int
policy_read_descriptor(struct zke_policy *p, const struct zkelect_policy *desc,
                       char *err, size_t errlen)
{
    const char *missing;

    if (desc == NULL) {
        policy_msg(err, errlen, "policy module %s: %s() returned NULL",
                   p->path, ZKELECT_POLICY_ENTRY);
        return ZKELECT_ESTRUCT;
    }
    /* abi_major is the first field: it can be read before the size is trusted. */
    if (desc->abi_major != ZKELECT_POLICY_ABI_MAJOR) {
        policy_msg(err, errlen, "policy module %s: built for policy ABI %u.%u, "
                   "this host implements ABI %d.%d (major versions differ)",
                   p->path, (unsigned)desc->abi_major, (unsigned)desc->abi_minor,
                   ZKELECT_POLICY_ABI_MAJOR, ZKELECT_POLICY_ABI_MINOR);
        return ZKELECT_EABI;
    }
    if (desc->size < POLICY_DESC_SIZE_1_0) {
        policy_msg(err, errlen, "policy module %s: descriptor size %lu is smaller "
                   "than the ABI 1.0 descriptor (%zu bytes)", p->path,
                   (unsigned long)desc->size, (size_t)POLICY_DESC_SIZE_1_0);
        return ZKELECT_ESTRUCT;
    }

    /* ABI 1.0 fields: always present once the size check passed. */
    missing = desc->name == NULL ? "name" : desc->name[0] == '\0' ? "name (empty)" :
              desc->init == NULL ? "init" : desc->choose == NULL ? "choose" :
              desc->fini == NULL ? "fini" : NULL;
    if (missing != NULL) {
        policy_msg(err, errlen, "policy module %s: descriptor field %s is NULL",
                   p->path, missing);
        return ZKELECT_ENULLCB;
    }
    p->name = desc->name;
    p->abi_minor = desc->abi_minor;
    p->init = desc->init;
    p->fini = desc->fini;
    p->choose = desc->choose;

    /*
     * Fields appended by later minor versions are read here, each only when
     * the module's abi_minor says it has it: a 1.0 descriptor may end right
     * after choose, and what follows it in the module's memory is not ours.
     * A module that claims a minor version must have the size it implies.
     */
    if (desc->abi_minor >= 1) {
        if (desc->size < POLICY_DESC_SIZE_1_1) {
            policy_msg(err, errlen, "policy module %s: descriptor of ABI %u.%u has "
                       "size %lu, smaller than the ABI 1.1 descriptor (%zu bytes)",
                       p->path, (unsigned)desc->abi_major, (unsigned)desc->abi_minor,
                       (unsigned long)desc->size, (size_t)POLICY_DESC_SIZE_1_1);
            return ZKELECT_ESTRUCT;
        }
        p->choose_set = desc->choose_set;    /* NULL: serves N = 1 only */
    }
    return 0;
}

int
zke_policy_load(const char *name_or_path, const char *search_path,
                const struct zkelect_option *opts, size_t nopts,
                struct zke_policy **out, char *err, size_t errlen)
{
    struct zke_policy *p = NULL;
    zkelect_policy_entry_fn entry;
    char initerr[256], clean[256];
    void *sym;
    int rc;

    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (out != NULL)
        *out = NULL;
    if (name_or_path == NULL || out == NULL || (opts == NULL && nopts > 0)) {
        policy_msg(err, errlen, "zke_policy_load: NULL argument");
        return ZKELECT_EINVAL;
    }
    if ((p = calloc(1, sizeof(*p))) == NULL) {
        rc = ZKELECT_ENOMEM;
        policy_msg(err, errlen, "policy %s: out of memory", name_or_path);
        goto err;
    }
    if ((rc = policy_find(name_or_path, search_path, &p->path, err, errlen)) != 0) {
        if (rc == ZKELECT_ENOMEM)
            policy_msg(err, errlen, "policy %s: out of memory", name_or_path);
        goto err;
    }

    if ((p->dl = dlopen(p->path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
        const char *dle = dlerror();
        policy_msg(err, errlen, "policy module %s: not a loadable shared object: %s",
                   p->path, dle != NULL ? dle : "dlopen failed");
        rc = ZKELECT_ENOTSO;
        goto err;
    }
    (void)dlerror();
    if ((sym = dlsym(p->dl, ZKELECT_POLICY_ENTRY)) == NULL) {
        const char *dle = dlerror();
        policy_msg(err, errlen, "policy module %s: no %s symbol (%s)", p->path,
                   ZKELECT_POLICY_ENTRY, dle != NULL ? dle : "symbol is NULL");
        rc = ZKELECT_ENOSYM;
        goto err;
    }
    /* POSIX guarantees a data pointer from dlsym() converts to a function pointer. */
    memcpy(&entry, &sym, sizeof(entry));
    if ((rc = policy_read_descriptor(p, entry(), err, errlen)) != 0)
        goto err;

    memset(initerr, 0, sizeof(initerr));
    /* On failure fini() is not called: the ABI pairs it with a successful init(). */
    if (p->init(&p->state, opts, nopts, initerr, sizeof(initerr)) != 0) {
        policy_clean(clean, sizeof(clean), initerr, sizeof(initerr));
        policy_msg(err, errlen, "policy module %s: policy %s init failed: %s",
                   p->path, p->name, clean[0] ? clean : "(no message)");
        rc = ZKELECT_EPOLINIT;
        goto err;
    }
    *out = p;
    return 0;

err:
    if (p != NULL) {
        if (p->dl != NULL)
            dlclose(p->dl);
        free(p->path);
        free(p);
    }
    return rc;
}

/* ------------------------------------------------------------------------
 * Choosing
 */

/*
 * Refuse member index idx (in range) when it cannot lead or is in the
 * exclusion list: -1 with the message in reason, naming the policy, the
 * member and where (at: "" for choose(), " (index I at position K of its
 * set)" for choose_set()).
 */
static int
policy_check_member(const struct zke_policy *p, const struct zkelect_policy_input *in,
                    int idx, const char *at, char *reason, size_t reasonlen)
{
    const struct zkelect_member *m = &in->members[idx];
    char id[128];
    size_t i;

    policy_clean(id, sizeof(id), m->id, strlen(m->id));
    if (!zkelect_member_can_lead(m)) {
        policy_msg(reason, reasonlen, "policy %s (%s) chose %s%s, which "
                   "cannot lead (%s): refused", p->name, p->path, id, at,
                   !m->eligible ? "not eligible" : !m->healthy ? "unhealthy" : "excluded");
        return -1;
    }
    for (i = 0; i < in->nexcluded; i++) {
        if (in->excluded[i].id != NULL && strcmp(in->excluded[i].id, m->id) == 0) {
            policy_msg(reason, reasonlen, "policy %s (%s) chose %s%s, which "
                       "is excluded: refused", p->name, p->path, id, at);
            return -1;
        }
    }
    return 0;
}

int
zke_policy_choose(struct zke_policy *p, const struct zkelect_policy_input *in,
                  int *chosen, char *reason, size_t reasonlen)
{
    struct zkelect_policy_output out;
    char text[sizeof(out.reason)];

    if (reason != NULL && reasonlen > 0)
        reason[0] = '\0';
    if (chosen != NULL)
        *chosen = -1;
    if (p == NULL || in == NULL || chosen == NULL ||
        (in->members == NULL && in->nmembers > 0)) {
        policy_msg(reason, reasonlen, "zke_policy_choose: NULL argument");
        return ZKELECT_EINVAL;
    }

    memset(&out, 0, sizeof(out));
    out.chosen = -1;
    if (p->choose(p->state, in, &out) != 0) {
        policy_clean(text, sizeof(text), out.reason, sizeof(out.reason));
        policy_msg(reason, reasonlen, "policy %s (%s) failed: %s", p->name, p->path,
                   text[0] ? text : "(no reason given)");
        return ZKELECT_EINVAL;
    }
    policy_clean(text, sizeof(text), out.reason, sizeof(out.reason));

    if (out.chosen == -1) {
        policy_msg(reason, reasonlen, "%s", text[0] ? text : "the policy chose no leader");
        return 0;
    }
    if (out.chosen < 0 || (size_t)out.chosen >= in->nmembers) {
        policy_msg(reason, reasonlen, "policy %s (%s) chose index %d, not -1 or a "
                   "member index below %zu: refused", p->name, p->path, out.chosen,
                   in->nmembers);
        return ZKELECT_EBADCHOICE;
    }
    if (policy_check_member(p, in, out.chosen, "", reason, reasonlen) != 0)
        return ZKELECT_EBADCHOICE;
    *chosen = out.chosen;
    if (text[0] != '\0')
        policy_msg(reason, reasonlen, "%s", text);
    else
        policy_msg(reason, reasonlen, "chosen by policy %s", p->name);
    return 0;
}

int
zke_policy_can_choose_set(const struct zke_policy *p)
{
    return p != NULL && p->choose_set != NULL;
}

int
zke_policy_choose_set(struct zke_policy *p, const struct zkelect_policy_input *in,
                      int *chosen, int *n, char *reason, size_t reasonlen)
{
    struct zkelect_policy_output out;
    char text[sizeof(out.reason)], at[64], id[128];
    int i, j, one, rc;

    if (reason != NULL && reasonlen > 0)
        reason[0] = '\0';
    if (n != NULL)
        *n = 0;
    if (p == NULL || in == NULL || chosen == NULL || n == NULL ||
        (in->members == NULL && in->nmembers > 0) ||
        in->size < sizeof(struct zkelect_policy_input) ||
        (in->slot_holders == NULL && in->nslots > 0)) {
        policy_msg(reason, reasonlen, "zke_policy_choose_set: NULL argument or an "
                   "input without the ABI 1.1 fields");
        return ZKELECT_EINVAL;
    }
    if (in->leaders < 1 || in->leaders > ZKELECT_POLICY_SLOTS_MAX ||
        in->nslots > ZKELECT_POLICY_SLOTS_MAX) {
        policy_msg(reason, reasonlen, "zke_policy_choose_set: leaders %u (or %zu slot "
                   "holders) outside 1..%d", in->leaders, in->nslots,
                   ZKELECT_POLICY_SLOTS_MAX);
        return ZKELECT_EINVAL;
    }

    /* N = 1: choose(), as before slots existed, whatever the module has. */
    if (in->leaders == 1) {
        rc = zke_policy_choose(p, in, &one, reason, reasonlen);
        if (rc == 0 && one >= 0) {
            chosen[0] = one;
            *n = 1;
        }
        return rc;
    }
    if (p->choose_set == NULL) {
        policy_msg(reason, reasonlen, "policy %s (%s) cannot choose %u leaders: it has "
                   "no choose_set (ABI %u.%u module%s), so it serves groups with "
                   "leaders = 1 only", p->name, p->path, in->leaders,
                   (unsigned)ZKELECT_POLICY_ABI_MAJOR, p->abi_minor,
                   p->abi_minor >= 1 ? " without it" : "");
        return ZKELECT_ECONFIG;
    }

    memset(&out, 0, sizeof(out));
    out.chosen = -1;
    out.nchosen = 0;
    if (p->choose_set(p->state, in, &out) != 0) {
        policy_clean(text, sizeof(text), out.reason, sizeof(out.reason));
        policy_msg(reason, reasonlen, "policy %s (%s) failed: %s", p->name, p->path,
                   text[0] ? text : "(no reason given)");
        return ZKELECT_EINVAL;
    }
    policy_clean(text, sizeof(text), out.reason, sizeof(out.reason));

    /* Never trusted: the whole set is refused for one bad element. */
    if (out.nchosen < 0 || (unsigned)out.nchosen > in->leaders) {
        policy_msg(reason, reasonlen, "policy %s (%s) returned a set of %d members, not "
                   "0 to leaders = %u: refused", p->name, p->path, out.nchosen,
                   in->leaders);
        return ZKELECT_EBADCHOICE;
    }
    for (i = 0; i < out.nchosen; i++) {
        int idx = out.chosen_set[i];

        if (idx < 0 || (size_t)idx >= in->nmembers) {
            policy_msg(reason, reasonlen, "policy %s (%s) chose index %d at position %d "
                       "of its set, not a member index below %zu: refused", p->name,
                       p->path, idx, i, in->nmembers);
            return ZKELECT_EBADCHOICE;
        }
        for (j = 0; j < i; j++) {
            if (out.chosen_set[j] == idx) {
                policy_clean(id, sizeof(id), in->members[idx].id,
                             strlen(in->members[idx].id));
                policy_msg(reason, reasonlen, "policy %s (%s) chose index %d (%s) twice, "
                           "at positions %d and %d of its set: refused", p->name,
                           p->path, idx, id, j, i);
                return ZKELECT_EBADCHOICE;
            }
        }
        snprintf(at, sizeof(at), " (index %d at position %d of its set)", idx, i);
        if (policy_check_member(p, in, idx, at, reason, reasonlen) != 0)
            return ZKELECT_EBADCHOICE;
    }
    for (i = 0; i < out.nchosen; i++)
        chosen[i] = out.chosen_set[i];
    *n = out.nchosen;
    if (text[0] != '\0')
        policy_msg(reason, reasonlen, "%s", text);
    else if (out.nchosen == 0)
        policy_msg(reason, reasonlen, "the policy chose no leader");
    else
        policy_msg(reason, reasonlen, "chosen by policy %s", p->name);
    return 0;
}

/* ------------------------------------------------------------------------
 * Accessors and unload
 */

const char *
zke_policy_name(const struct zke_policy *p)
{
    return p != NULL ? p->name : "";
}

const char *
zke_policy_path(const struct zke_policy *p)
{
    return p != NULL ? p->path : "";
}

void
zke_policy_unload(struct zke_policy *p)
{
    if (p == NULL)
        return;
    if (p->fini != NULL)
        p->fini(p->state);
    if (p->dl != NULL)
        dlclose(p->dl);
    free(p->path);
    free(p);
}
