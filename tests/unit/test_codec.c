/*
 * test_codec.c - unit tests of the znode payload codec (src/lib/codec.c).
 *
 * Suites: decode (table of payloads, each with the exact code it must give
 * and the field its message must name), values (what decoding yields),
 * generated (payloads built at run time: sizes, counts, nesting), encode
 * (round trips, golden output, refused structs), messages, misc (validators,
 * history_push), fault (allocation failures injected through cJSON's hooks).
 *
 * Payload literals use ' for " to stay readable; check_dec() swaps them.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "zkelect.h"
#include "codec.h"
#include "cutest.h"

#define BIG (ZKE_PAYLOAD_MAX + 64)

static char errbuf[512];        /* message of the last decode */
static char work[BIG];          /* payload being decoded */

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

/* One decoder per kind, with the output struct hidden (static: history is big). */
typedef int (*dec_fn)(const char *buf, int len, char *err, size_t errlen);

static struct zke_member g_member;
static struct zke_elected g_elected;
static struct zke_leader g_leader;
static struct zke_config g_config;
static struct zke_switchover g_switchover;
static struct zke_history g_history;
static struct zke_successor g_successor;

static int
dec_member(const char *b, int l, char *e, size_t n)
{
    return zke_member_decode(b, l, &g_member, e, n);
}

static int
dec_elected(const char *b, int l, char *e, size_t n)
{
    return zke_elected_decode(b, l, &g_elected, e, n);
}

static int
dec_leader(const char *b, int l, char *e, size_t n)
{
    return zke_leader_decode(b, l, &g_leader, e, n);
}

static int
dec_config(const char *b, int l, char *e, size_t n)
{
    return zke_config_decode(b, l, &g_config, e, n);
}

static int
dec_switchover(const char *b, int l, char *e, size_t n)
{
    return zke_switchover_decode(b, l, &g_switchover, e, n);
}

static int
dec_history(const char *b, int l, char *e, size_t n)
{
    return zke_history_decode(b, l, &g_history, e, n);
}

static int
dec_successor(const char *b, int l, char *e, size_t n)
{
    return zke_successor_decode(b, l, &g_successor, e, n);
}

/* Copy len bytes of a test payload into work, turning ' into ". */
static int
load(const char *src, size_t len)
{
    size_t i;

    CU_ASSERT_FATAL(len <= sizeof(work));
    for (i = 0; i < len; i++)
        work[i] = src[i] == '\'' ? '"' : src[i];
    return (int)len;
}

/*
 * Decode len bytes of json with fn; assert the code, and for a failure that
 * the message starts with "kind: ", is one line and names field (if any).
 */
static void
check_raw(dec_fn fn, const char *kind, const char *buf, int len, int want,
    const char *field)
{
    char needle[128];
    size_t klen = strlen(kind);
    int rc;

    memset(errbuf, 'X', sizeof(errbuf));
    rc = fn(buf, len, errbuf, sizeof(errbuf));
    if (rc != want)
        fprintf(stderr, "\n    got %s (\"%s\"), want %s\n", zkelect_errname(rc),
            errbuf, zkelect_errname(want));
    CU_ASSERT_EQUAL(rc, want);
    CU_ASSERT(memchr(errbuf, '\0', sizeof(errbuf)) != NULL);
    if (want == 0) {
        CU_ASSERT_STRING_EQUAL(errbuf, "");
        return;
    }
    CU_ASSERT(strncmp(errbuf, kind, klen) == 0 && errbuf[klen] == ':' &&
        errbuf[klen + 1] == ' ' && errbuf[klen + 2] != '\0');
    CU_ASSERT(strchr(errbuf, '\n') == NULL);
    if (field != NULL) {
        snprintf(needle, sizeof(needle), "field \"%s\"", field);
        if (strstr(errbuf, needle) == NULL)
            fprintf(stderr, "\n    message \"%s\" lacks %s\n", errbuf, needle);
        CU_ASSERT(strstr(errbuf, needle) != NULL);
    }
}

static void
check_dec(dec_fn fn, const char *kind, const char *json, size_t len, int want,
    const char *field)
{
    int n = load(json, len);

    check_raw(fn, kind, work, n, want, field);
}

/* Growable string for generated payloads (quotes as '). */
struct sb {
    char buf[BIG * 2];
    size_t len;
};

static struct sb sb;

static void
sb_reset(void)
{
    sb.len = 0;
    sb.buf[0] = '\0';
}

static void
sb_add(const char *s)
{
    size_t n = strlen(s);

    CU_ASSERT_FATAL(sb.len + n < sizeof(sb.buf));
    memcpy(sb.buf + sb.len, s, n + 1);
    sb.len += n;
}

static void
sb_repeat(const char *s, int times)
{
    while (times-- > 0)
        sb_add(s);
}

static void sb_addf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
sb_addf(const char *fmt, ...)
{
    char tmp[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    sb_add(tmp);
}

/* ------------------------------------------------------------------------ */
/* Payload builders                                                         */
/* ------------------------------------------------------------------------ */

#define A16 "aaaaaaaaaaaaaaaa"
#define A64 A16 A16 A16 A16
#define LETTERS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh"
#define HEX32 "0123456789abcdef0123456789abcdef"

#define MEM(id, site, prio, extra) \
    "{'v':1,'id':" id ",'site':" site ",'priority':" prio \
    ",'eligible':true,'healthy':true" extra "}"
#define MEM_OK MEM("'n1'", "'dc1'", "5", "")

#define ELE_TAIL "'elector':'n1','policy':'site','reason':'initial'"
#define ELE(epoch, leader, extra) \
    "{'v':1,'epoch':" epoch ",'leader':" leader "," ELE_TAIL ",'excluded':[]" \
    extra "}"
#define ELX(list) "{'v':1,'epoch':7,'leader':'n2'," ELE_TAIL ",'excluded':" list "}"
#define XO(id, reason, rem) \
    "{'id':" id ",'reason':" reason ",'remaining_ms':" rem "}"

#define LEA(id, status, epoch, extra) \
    "{'v':1,'id':" id ",'status':" status ",'epoch':" epoch extra "}"
#define CFG(extra) "{'v':1" extra "}"
#define SWI(id, to, extra) "{'v':1,'id':" id ",'to':" to extra "}"
#define DR(body) CFG(",'drains':{" body "}")
#define DRN(until, extra) "'n1':{'until_ms':" until extra "}"
#define HOLD(body) ELE("7", "'n2'", ",'hold':" body)
#define HIS(list) "{'v':1,'entries':" list "}"
#define HE(epoch, leader, extra) \
    "{'epoch':" epoch ",'leader':" leader \
    ",'elector':'n1','policy':'site','reason':'r'" extra "}"
/* issue 17: elected "slots" (the top-level leader, slot 0, is 'n2') */
#define SL(k, leader, epoch, extra) \
    "{'slot':" k ",'leader':" leader ",'epoch':" epoch extra "}"
#define ELS(list) ELE("7", "'n2'", ",'slots':" list)
#define SL15 SL("1", "null", "0", "") "," SL("2", "null", "0", "") "," \
    SL("3", "null", "0", "") "," SL("4", "null", "0", "") "," \
    SL("5", "null", "0", "") "," SL("6", "null", "0", "") "," \
    SL("7", "null", "0", "") "," SL("8", "null", "0", "") "," \
    SL("9", "null", "0", "") "," SL("10", "null", "0", "") "," \
    SL("11", "null", "0", "") "," SL("12", "null", "0", "") "," \
    SL("13", "null", "0", "") "," SL("14", "null", "0", "") "," \
    SL("15", "'n3'", "1", "")
/* issue 18: successor; SE is slot 0's entry (no "slot" key) n1 -> n2 */
#define SUC_TOP "'elected_version':4,'next_epoch':9,'elector':'n3'," \
    "'policy':'site'"
#define SUC(list) "{'v':1," SUC_TOP ",'slots':" list "}"
#define SUC_ZL "'leader_znode':'n1_" HEX32 "_0000000001'"
#define SUC_ZS "'successor_znode':'n2_" HEX32 "_0000000002'"
#define SEF(body) "{" body "}"
#define SE(extra) SEF("'leader':'n1'," SUC_ZL ",'successor':'n2'," SUC_ZS extra)
#define SEK(k, leader, succ, extra) SEF("'slot':" k ",'leader':" leader "," \
    SUC_ZL ",'successor':" succ "," SUC_ZS extra)

/* ------------------------------------------------------------------------ */
/* Suite "decode": name, kind, payload, expected code, field named (or NULL) */
/* ------------------------------------------------------------------------ */

#define DECODE_CASES(X)                                                       \
    /* framing and syntax */                                                  \
    X(empty_data, member, "", ESYNTAX, NULL)                                  \
    X(only_whitespace, member, " \n\t ", ESYNTAX, NULL)                       \
    X(empty_object_lacks_v, member, "{}", EMISSING, "v")                      \
    X(top_array, member, "[]", ETYPE, NULL)                                   \
    X(top_null, member, "null", ETYPE, NULL)                                  \
    X(top_number, member, "1", ETYPE, NULL)                                   \
    X(top_string, member, "'x'", ETYPE, NULL)                                 \
    X(top_true, leader, "true", ETYPE, NULL)                                  \
    X(truncated_object, member, "{'v':1,'id':'n1'", ESYNTAX, NULL)            \
    X(truncated_string, member, "{'v':1,'id':'n", ESYNTAX, NULL)              \
    X(truncated_after_colon, member, "{'v':", ESYNTAX, NULL)                  \
    X(truncated_literal, member, "{'v':1,'x':tru", ESYNTAX, NULL)             \
    X(trailing_garbage, member, MEM_OK "x", ETRAILING, NULL)                  \
    X(trailing_object, member, MEM_OK "{}", ETRAILING, NULL)                  \
    X(trailing_nul, member, MEM_OK "\0", ETRAILING, NULL)                     \
    X(trailing_ws_ok, member, MEM_OK " \r\n\t ", OK, NULL)                    \
    X(leading_ws_ok, member, "\n  " MEM_OK, OK, NULL)                         \
    X(trailing_comma, member, "{'v':1,'id':'n1',}", ESYNTAX, NULL)            \
    X(missing_colon, member, "{'v' 1}", ESYNTAX, NULL)                        \
    X(missing_comma, member, "{'v':1 'id':'n1'}", ESYNTAX, NULL)              \
    X(unquoted_key, member, "{v:1}", ESYNTAX, NULL)                           \
    X(leading_zero, member, MEM("'n1'", "'dc1'", "05", ""), ESYNTAX, NULL)    \
    X(plus_sign, member, MEM("'n1'", "'dc1'", "+5", ""), ESYNTAX, NULL)       \
    X(bare_dot, member, MEM("'n1'", "'dc1'", "5.", ""), ESYNTAX, NULL)        \
    X(nan_literal, member, MEM("'n1'", "'dc1'", "NaN", ""), ESYNTAX, NULL)    \
    X(bad_escape, member, MEM("'n\\x1'", "'dc1'", "5", ""), ESYNTAX, NULL)    \
    X(short_u_escape, member, MEM("'n\\u12'", "'dc1'", "5", ""), ESYNTAX,     \
        NULL)                                                                 \
    X(raw_control_char, member, MEM("'n\x01'", "'dc1'", "5", ""), ESYNTAX,    \
        NULL)                                                                 \
    X(raw_newline_in_string, member, MEM("'n\n1'", "'dc1'", "5", ""),         \
        ESYNTAX, NULL)                                                        \
    X(bom_refused, member, "\xEF\xBB\xBF" MEM_OK, ESYNTAX, NULL)              \
    /* version */                                                             \
    X(v_missing, member, "{'id':'n1','site':'','priority':1,'eligible':true," \
        "'healthy':true}", EMISSING, "v")                                     \
    X(v_string, member, "{'v':'1'}", ETYPE, "v")                              \
    X(v_fraction, member, "{'v':1.5}", ETYPE, "v")                            \
    X(v_huge, member, "{'v':1e400}", ETYPE, "v")                              \
    X(v_null, elected, "{'v':null}", ETYPE, "v")                              \
    X(v_bool, leader, "{'v':true}", ETYPE, "v")                               \
    X(v_two, member, "{'v':2}", EVERSION, "v")                                \
    X(v_zero, member, "{'v':0}", EVERSION, "v")                               \
    X(v_negative, config, "{'v':-1}", EVERSION, "v")                          \
    X(v_big_integral, config, "{'v':1e300}", EVERSION, "v")                   \
    X(v_one_point_zero, config, "{'v':1.0}", OK, NULL)                        \
    X(v_exponent_form, config, "{'v':10e-1}", OK, NULL)                       \
    X(v_duplicate, config, "{'v':1,'v':1}", EBADVALUE, "v")                   \
    X(v_checked_first, member, "{'v':2,'id':5}", EVERSION, "v")               \
    X(unknown_fields_ignored, member,                                         \
        MEM("'n1'", "'dc1'", "5", ",'zone':{'a':[1,2,{'b':null}]},'x':-1.5e3"), \
        OK, NULL)                                                             \
    X(unknown_duplicates_ignored, member,                                     \
        MEM("'n1'", "'dc1'", "5", ",'x':1,'x':'y'"), OK, NULL)                \
    X(key_case_matters, member,                                               \
        "{'v':1,'ID':'n1','site':'dc1','priority':5,'eligible':true,"         \
        "'healthy':true}", EMISSING, "id")                                    \
    /* UTF-8 */                                                               \
    X(utf8_overlong, member, MEM("'n1'", "'\xC0\xAF'", "5", ""), EUTF8, NULL) \
    X(utf8_overlong3, member, MEM("'n1'", "'\xE0\x80\xAF'", "5", ""), EUTF8,  \
        NULL)                                                                 \
    X(utf8_overlong4, member, MEM("'n1'", "'\xF0\x80\x80\xAF'", "5", ""),     \
        EUTF8, NULL)                                                          \
    X(utf8_surrogate, member, MEM("'n1'", "'\xED\xA0\x80'", "5", ""), EUTF8,  \
        NULL)                                                                 \
    X(utf8_above_max, member, MEM("'n1'", "'\xF4\x90\x80\x80'", "5", ""),     \
        EUTF8, NULL)                                                          \
    X(utf8_f5, member, MEM("'n1'", "'\xF5\x80\x80\x80'", "5", ""), EUTF8,     \
        NULL)                                                                 \
    X(utf8_lone_continuation, member, MEM("'n1'", "'\x80'", "5", ""), EUTF8,  \
        NULL)                                                                 \
    X(utf8_truncated, member, MEM("'n1'", "'\xE2\x82'", "5", ""), EUTF8, NULL) \
    X(utf8_truncated_at_end, member, MEM_OK "\xE2\x82", EUTF8, NULL)          \
    X(utf8_in_key, member, MEM("'n1'", "'dc1'", "5", ",'\xFF':1"), EUTF8,     \
        NULL)                                                                 \
    X(utf8_in_unknown_field, member, MEM("'n1'", "'dc1'", "5", ",'x':'\xC1\xBF'"), \
        EUTF8, NULL)                                                          \
    X(escape_lone_high, member, MEM("'n1'", "'dc1'", "5", ",'host':'\\ud800'"), \
        EUTF8, NULL)                                                          \
    X(escape_lone_low, member, MEM("'n1'", "'dc1'", "5", ",'host':'\\udc00'"), \
        EUTF8, NULL)                                                          \
    X(escape_high_then_other, member,                                         \
        MEM("'n1'", "'dc1'", "5", ",'host':'\\ud800\\u0041'"), EUTF8, NULL)   \
    X(escape_high_at_end, member,                                             \
        MEM("'n1'", "'dc1'", "5", ",'host':'x\\uD800'"), EUTF8, NULL)         \
    X(escape_nul, member, MEM("'n1'", "'dc1'", "5", ",'host':'a\\u0000b'"),   \
        EUTF8, NULL)                                                          \
    X(escape_nul_in_key, member, MEM("'n1'", "'dc1'", "5", ",'a\\u0000':1"),  \
        EUTF8, NULL)                                                          \
    X(escape_pair_ok, member,                                                 \
        MEM("'n1'", "'dc1'", "5", ",'host':'\\ud83d\\ude00'"), OK, NULL)      \
    X(escaped_backslash_u_ok, member,                                         \
        MEM("'n1'", "'dc1'", "5", ",'host':'\\\\ud800'"), OK, NULL)           \
    X(raw_utf8_ok, member,                                                    \
        MEM("'n1'", "'dc1'", "5", ",'host':'h\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80'"), \
        OK, NULL)                                                             \
    /* member: required fields */                                             \
    X(member_id_missing, member, "{'v':1,'site':'dc1','priority':5,"          \
        "'eligible':true,'healthy':true}", EMISSING, "id")                    \
    X(member_site_missing, member, "{'v':1,'id':'n1','priority':5,"           \
        "'eligible':true,'healthy':true}", EMISSING, "site")                  \
    X(member_priority_missing, member, "{'v':1,'id':'n1','site':'dc1',"       \
        "'eligible':true,'healthy':true}", EMISSING, "priority")              \
    X(member_eligible_missing, member, "{'v':1,'id':'n1','site':'dc1',"       \
        "'priority':5,'healthy':true}", EMISSING, "eligible")                 \
    X(member_healthy_missing, member, "{'v':1,'id':'n1','site':'dc1',"        \
        "'priority':5,'eligible':true}", EMISSING, "healthy")                 \
    X(member_optional_absent_ok, member, MEM_OK, OK, NULL)                    \
    /* member: types */                                                       \
    X(member_id_number, member, MEM("5", "'dc1'", "5", ""), ETYPE, "id")      \
    X(member_id_null, member, MEM("null", "'dc1'", "5", ""), ETYPE, "id")     \
    X(member_id_array, member, MEM("['n1']", "'dc1'", "5", ""), ETYPE, "id")  \
    X(member_site_number, member, MEM("'n1'", "1", "5", ""), ETYPE, "site")   \
    X(member_site_null, member, MEM("'n1'", "null", "5", ""), ETYPE, "site")  \
    X(member_priority_string, member, MEM("'n1'", "'dc1'", "'5'", ""), ETYPE, \
        "priority")                                                           \
    X(member_priority_bool, member, MEM("'n1'", "'dc1'", "true", ""), ETYPE,  \
        "priority")                                                           \
    X(member_eligible_string, member, "{'v':1,'id':'n1','site':'','priority':1," \
        "'eligible':'true','healthy':true}", ETYPE, "eligible")               \
    X(member_eligible_number, member, "{'v':1,'id':'n1','site':'','priority':1," \
        "'eligible':1,'healthy':true}", ETYPE, "eligible")                    \
    X(member_healthy_null, member, "{'v':1,'id':'n1','site':'','priority':1," \
        "'eligible':true,'healthy':null}", ETYPE, "healthy")                  \
    X(member_host_number, member, MEM("'n1'", "'dc1'", "5", ",'host':5"),     \
        ETYPE, "host")                                                        \
    X(member_pid_string, member, MEM("'n1'", "'dc1'", "5", ",'pid':'12'"),    \
        ETYPE, "pid")                                                         \
    X(member_version_bool, member, MEM("'n1'", "'dc1'", "5", ",'version':true"), \
        ETYPE, "version")                                                     \
    X(member_tags_object, member, MEM("'n1'", "'dc1'", "5", ",'tags':{}"),    \
        ETYPE, "tags")                                                        \
    X(member_tags_string, member, MEM("'n1'", "'dc1'", "5", ",'tags':'a'"),   \
        ETYPE, "tags")                                                        \
    X(member_tag_number, member, MEM("'n1'", "'dc1'", "5", ",'tags':['a',1]"), \
        ETYPE, "tags[1]")                                                     \
    X(member_guid_number, member, MEM("'n1'", "'dc1'", "5", ",'guid':1"),     \
        ETYPE, "guid")                                                        \
    /* member: ranges */                                                      \
    X(member_priority_max_ok, member, MEM("'n1'", "'dc1'", "1000000", ""), OK, \
        NULL)                                                                 \
    X(member_priority_min_ok, member, MEM("'n1'", "'dc1'", "-1000000", ""),   \
        OK, NULL)                                                             \
    X(member_priority_too_big, member, MEM("'n1'", "'dc1'", "1000001", ""),   \
        ERANGE, "priority")                                                   \
    X(member_priority_too_small, member, MEM("'n1'", "'dc1'", "-1000001", ""), \
        ERANGE, "priority")                                                   \
    X(member_priority_fraction, member, MEM("'n1'", "'dc1'", "1.5", ""),      \
        ERANGE, "priority")                                                   \
    X(member_priority_inf, member, MEM("'n1'", "'dc1'", "1e400", ""), ERANGE, \
        "priority")                                                           \
    X(member_priority_neg_inf, member, MEM("'n1'", "'dc1'", "-1e400", ""),    \
        ERANGE, "priority")                                                   \
    X(member_pid_negative, member, MEM("'n1'", "'dc1'", "5", ",'pid':-1"),    \
        ERANGE, "pid")                                                        \
    X(member_pid_2p53, member,                                                \
        MEM("'n1'", "'dc1'", "5", ",'pid':9007199254740992"), ERANGE, "pid")  \
    X(member_pid_2p64, member,                                                \
        MEM("'n1'", "'dc1'", "5", ",'pid':18446744073709551616"), ERANGE, "pid") \
    X(member_pid_long_literal, member, MEM("'n1'", "'dc1'", "5", ",'pid':"    \
        "1000000000000000000000000000000000000000000000000000000000000000000"), \
        ERANGE, NULL)                                                         \
    X(long_literal_in_unknown_field, member, MEM("'n1'", "'dc1'", "5",        \
        ",'x':0.10000000000000000000000000000000000000000000000000000000000001"), \
        ERANGE, NULL)                                                         \
    X(literal_of_63_ok, member, MEM("'n1'", "'dc1'", "5",                     \
        ",'x':0.1000000000000000000000000000000000000000000000000000000000001"), \
        OK, NULL)                                                             \
    /* member: sizes */                                                       \
    X(member_id_64_ok, member, MEM("'" A64 "'", "'dc1'", "5", ""), OK, NULL)  \
    X(member_id_65, member, MEM("'" A64 "a'", "'dc1'", "5", ""), ETOOBIG, "id") \
    X(member_site_65, member, MEM("'n1'", "'" A64 "a'", "5", ""), ETOOBIG,    \
        "site")                                                               \
    X(member_host_256, member,                                                \
        MEM("'n1'", "'dc1'", "5", ",'host':'" A64 A64 A64 A64 "a'"), ETOOBIG, \
        "host")                                                               \
    X(member_version_33, member,                                              \
        MEM("'n1'", "'dc1'", "5", ",'version':'" A16 A16 "a'"), ETOOBIG,      \
        "version")                                                            \
    X(member_tag_65, member,                                                  \
        MEM("'n1'", "'dc1'", "5", ",'tags':['x','" A64 "a']"), ETOOBIG,       \
        "tags[1]")                                                            \
    X(member_tags_17, member, MEM("'n1'", "'dc1'", "5", ",'tags':['a','b',"   \
        "'c','d','e','f','g','h','i','j','k','l','m','n','o','p','q']"),      \
        ETOOBIG, "tags")                                                      \
    X(member_tags_16_ok, member, MEM("'n1'", "'dc1'", "5", ",'tags':['a','b'," \
        "'c','d','e','f','g','h','i','j','k','l','m','n','o','p']"), OK, NULL) \
    /* member: values */                                                      \
    X(member_id_empty, member, MEM("''", "'dc1'", "5", ""), EBADVALUE, "id")  \
    X(member_id_dot, member, MEM("'.x'", "'dc1'", "5", ""), EBADVALUE, "id")  \
    X(member_id_dash, member, MEM("'-x'", "'dc1'", "5", ""), EBADVALUE, "id") \
    X(member_id_slash, member, MEM("'a/b'", "'dc1'", "5", ""), EBADVALUE, "id") \
    X(member_id_space, member, MEM("'a b'", "'dc1'", "5", ""), EBADVALUE, "id") \
    X(member_id_non_ascii, member, MEM("'n\xC3\xA9'", "'dc1'", "5", ""),      \
        EBADVALUE, "id")                                                      \
    X(member_id_escaped_newline, member, MEM("'n\\n'", "'dc1'", "5", ""),     \
        EBADVALUE, "id")                                                      \
    X(member_id_inner_chars_ok, member, MEM("'_a.b-C9'", "'dc1'", "5", ""),   \
        OK, NULL)                                                             \
    X(member_site_empty_ok, member, MEM("'n1'", "''", "5", ""), OK, NULL)     \
    X(member_site_space, member, MEM("'n1'", "'d c'", "5", ""), EBADVALUE,    \
        "site")                                                               \
    X(member_site_dash, member, MEM("'n1'", "'-dc'", "5", ""), EBADVALUE,     \
        "site")                                                               \
    X(member_tag_bad, member, MEM("'n1'", "'dc1'", "5", ",'tags':['ok','a:b']"), \
        EBADVALUE, "tags[1]")                                                 \
    X(member_tag_empty, member, MEM("'n1'", "'dc1'", "5", ",'tags':['']"),    \
        EBADVALUE, "tags[0]")                                                 \
    X(member_tag_duplicate, member,                                           \
        MEM("'n1'", "'dc1'", "5", ",'tags':['a','b','a']"), EBADVALUE,        \
        "tags[2]")                                                            \
    X(member_guid_ok, member, MEM("'n1'", "'dc1'", "5", ",'guid':'" HEX32 "'"), \
        OK, NULL)                                                             \
    X(member_guid_upper, member,                                              \
        MEM("'n1'", "'dc1'", "5", ",'guid':'0123456789ABCDEF0123456789abcdef'"), \
        EBADVALUE, "guid")                                                    \
    X(member_guid_31, member,                                                 \
        MEM("'n1'", "'dc1'", "5", ",'guid':'0123456789abcdef0123456789abcde'"), \
        EBADVALUE, "guid")                                                    \
    X(member_guid_33, member,                                                 \
        MEM("'n1'", "'dc1'", "5", ",'guid':'" HEX32 "0'"), ETOOBIG, "guid")   \
    X(member_guid_non_hex, member,                                            \
        MEM("'n1'", "'dc1'", "5", ",'guid':'0123456789abcdef0123456789abcdeg'"), \
        EBADVALUE, "guid")                                                    \
    X(member_host_control, member,                                            \
        MEM("'n1'", "'dc1'", "5", ",'host':'a\\tb'"), EBADVALUE, "host")      \
    X(member_host_del, member, MEM("'n1'", "'dc1'", "5", ",'host':'a\x7f'"),  \
        EBADVALUE, "host")                                                    \
    X(member_duplicate_id, member, MEM("'n1'", "'dc1'", "5", ",'id':'n2'"),   \
        EBADVALUE, "id")                                                      \
    X(member_duplicate_priority, member, MEM("'n1'", "'dc1'", "5",            \
        ",'priority':5"), EBADVALUE, "priority")                              \
    /* elected */                                                             \
    X(elected_ok, elected, ELE("7", "'n2'", ""), OK, NULL)                    \
    X(elected_null_leader_ok, elected, ELE("7", "null", ""), OK, NULL)        \
    X(elected_epoch_missing, elected, "{'v':1,'leader':'n2'," ELE_TAIL        \
        ",'excluded':[]}", EMISSING, "epoch")                                 \
    X(elected_leader_missing, elected, "{'v':1,'epoch':7," ELE_TAIL           \
        ",'excluded':[]}", EMISSING, "leader")                                \
    X(elected_elector_missing, elected, "{'v':1,'epoch':7,'leader':'n2',"     \
        "'policy':'site','reason':'r','excluded':[]}", EMISSING, "elector")   \
    X(elected_policy_missing, elected, "{'v':1,'epoch':7,'leader':'n2',"      \
        "'elector':'n1','reason':'r','excluded':[]}", EMISSING, "policy")     \
    X(elected_reason_missing, elected, "{'v':1,'epoch':7,'leader':'n2',"      \
        "'elector':'n1','policy':'site','excluded':[]}", EMISSING, "reason")  \
    X(elected_excluded_missing, elected, "{'v':1,'epoch':7,'leader':'n2',"    \
        ELE_TAIL "}", EMISSING, "excluded")                                   \
    X(elected_epoch_string, elected, ELE("'7'", "'n2'", ""), ETYPE, "epoch")  \
    X(elected_epoch_zero, elected, ELE("0", "'n2'", ""), ERANGE, "epoch")     \
    X(elected_epoch_negative, elected, ELE("-1", "'n2'", ""), ERANGE, "epoch") \
    X(elected_epoch_2p53, elected, ELE("9007199254740992", "'n2'", ""),       \
        ERANGE, "epoch")                                                      \
    X(elected_epoch_max_ok, elected, ELE("9007199254740991", "'n2'", ""), OK, \
        NULL)                                                                 \
    X(elected_epoch_inf, elected, ELE("1e400", "'n2'", ""), ERANGE, "epoch")  \
    X(elected_epoch_fraction, elected, ELE("7.25", "'n2'", ""), ERANGE,       \
        "epoch")                                                              \
    X(elected_leader_number, elected, ELE("7", "2", ""), ETYPE, "leader")     \
    X(elected_leader_empty, elected, ELE("7", "''", ""), EBADVALUE, "leader") \
    X(elected_leader_bad, elected, ELE("7", "'a b'", ""), EBADVALUE, "leader") \
    X(elected_leader_site_number, elected, ELE("7", "'n2'",                   \
        ",'leader_site':1"), ETYPE, "leader_site")                            \
    X(elected_leader_znode_number, elected, ELE("7", "'n2'",                  \
        ",'leader_znode':5"), ETYPE, "leader_znode")                          \
    X(elected_leader_znode_slash, elected, ELE("7", "'n2'",                   \
        ",'leader_znode':'a/b'"), EBADVALUE, "leader_znode")                  \
    X(elected_config_version_low, elected, ELE("7", "'n2'",                   \
        ",'config_version':-2"), ERANGE, "config_version")                    \
    X(elected_config_version_text, elected, ELE("7", "'n2'",                  \
        ",'config_version':'3'"), ETYPE, "config_version")                    \
    X(elected_previous_number, elected, ELE("7", "'n2'", ",'previous':1"),    \
        ETYPE, "previous")                                                    \
    X(elected_previous_bad, elected, ELE("7", "'n2'", ",'previous':'.p'"),    \
        EBADVALUE, "previous")                                                \
    X(elected_elector_number, elected, "{'v':1,'epoch':7,'leader':'n2',"      \
        "'elector':1,'policy':'site','reason':'r','excluded':[]}", ETYPE,     \
        "elector")                                                            \
    X(elected_elector_null, elected, "{'v':1,'epoch':7,'leader':'n2',"        \
        "'elector':null,'policy':'site','reason':'r','excluded':[]}", ETYPE,  \
        "elector")                                                            \
    X(elected_policy_bool, elected, "{'v':1,'epoch':7,'leader':'n2',"         \
        "'elector':'n1','policy':false,'reason':'r','excluded':[]}", ETYPE,   \
        "policy")                                                             \
    X(elected_policy_bad, elected, "{'v':1,'epoch':7,'leader':'n2',"          \
        "'elector':'n1','policy':'my policy','reason':'r','excluded':[]}",    \
        EBADVALUE, "policy")                                                  \
    X(elected_reason_array, elected, "{'v':1,'epoch':7,'leader':'n2',"        \
        "'elector':'n1','policy':'site','reason':[],'excluded':[]}", ETYPE,   \
        "reason")                                                             \
    X(elected_reason_159_ok, elected, "{'v':1,'epoch':7,'leader':'n2',"       \
        "'elector':'n1','policy':'site','reason':'" A64 A64 A16 "aaaaaaaaaaaaaaa'," \
        "'excluded':[]}", OK, NULL)                                           \
    X(elected_reason_160, elected, "{'v':1,'epoch':7,'leader':'n2',"          \
        "'elector':'n1','policy':'site','reason':'" A64 A64 A16 A16 "',"      \
        "'excluded':[]}", ETOOBIG, "reason")                                  \
    X(elected_at_ms_string, elected, ELE("7", "'n2'", ",'at_ms':'now'"),      \
        ETYPE, "at_ms")                                                       \
    X(elected_at_ms_negative, elected, ELE("7", "'n2'", ",'at_ms':-5"),       \
        ERANGE, "at_ms")                                                      \
    X(elected_switchover_id_negative, elected,                                \
        ELE("7", "'n2'", ",'switchover_id':-1"), ERANGE, "switchover_id")     \
    X(elected_switchover_id_fraction, elected,                                \
        ELE("7", "'n2'", ",'switchover_id':0.5"), ERANGE, "switchover_id")    \
    X(elected_excluded_object, elected, ELX("{}"), ETYPE, "excluded")         \
    X(elected_excluded_null, elected, ELX("null"), ETYPE, "excluded")         \
    X(elected_exclusion_not_object, elected, ELX("['n3']"), ETYPE,            \
        "excluded[0]")                                                        \
    X(elected_exclusion_ok, elected,                                          \
        ELX("[" XO("'n3'", "'watchdog'", "1000") "]"), OK, NULL)              \
    X(elected_exclusion_id_missing, elected,                                  \
        ELX("[{'reason':'watchdog','remaining_ms':5}]"), EMISSING,            \
        "excluded[0].id")                                                     \
    X(elected_exclusion_reason_missing, elected,                              \
        ELX("[{'id':'n3','remaining_ms':5}]"), EMISSING, "excluded[0].reason") \
    X(elected_exclusion_remaining_missing, elected,                           \
        ELX("[{'id':'n3','reason':'watchdog'}]"), EMISSING,                   \
        "excluded[0].remaining_ms")                                           \
    X(elected_exclusion_id_number, elected,                                   \
        ELX("[" XO("3", "'watchdog'", "1") "]"), ETYPE, "excluded[0].id")     \
    X(elected_exclusion_reason_bad, elected,                                  \
        ELX("[" XO("'n3'", "'too slow'", "1") "]"), EBADVALUE,                \
        "excluded[0].reason")                                                 \
    X(elected_exclusion_remaining_string, elected,                            \
        ELX("[" XO("'n3'", "'watchdog'", "'1'") "]"), ETYPE,                  \
        "excluded[0].remaining_ms")                                           \
    X(elected_exclusion_remaining_7d_ok, elected,                             \
        ELX("[" XO("'n3'", "'watchdog'", "604800000") "]"), OK, NULL)         \
    X(elected_exclusion_remaining_too_big, elected,                           \
        ELX("[" XO("'n3'", "'watchdog'", "1") "," XO("'n4'", "'watchdog'",    \
        "604800001") "]"), ERANGE, "excluded[1].remaining_ms")                \
    X(elected_exclusion_duplicate, elected,                                   \
        ELX("[" XO("'n3'", "'a'", "1") "," XO("'n4'", "'b'", "1") ","         \
        XO("'n3'", "'c'", "1") "]"), EBADVALUE, "excluded[2].id")             \
    X(elected_exclusion_duplicate_key, elected,                               \
        ELX("[{'id':'n3','reason':'a','remaining_ms':1,'id':'n4'}]"),         \
        EBADVALUE, "excluded[0].id")                                          \
    /* elected: the hosts (issue 18), optional text like a member's host */ \
    X(elected_hosts_ok, elected, ELE("7", "'n2'",                             \
        ",'leader_host':'h2.example','previous_host':'10.0.0.1'"), OK, NULL)  \
    X(elected_hosts_255_ok, elected, ELE("7", "'n2'", ",'leader_host':'"      \
        A64 A64 A64 A16 A16 A16 "aaaaaaaaaaaaaaa'"), OK, NULL)              \
    X(elected_leader_host_number, elected, ELE("7", "'n2'",                   \
        ",'leader_host':5"), ETYPE, "leader_host")                            \
    X(elected_previous_host_array, elected, ELE("7", "'n2'",                  \
        ",'previous_host':['h1']"), ETYPE, "previous_host")                   \
    X(elected_leader_host_256, elected, ELE("7", "'n2'",                      \
        ",'leader_host':'" A64 A64 A64 A64 "a'"), ETOOBIG, "leader_host")     \
    X(elected_previous_host_256, elected, ELE("7", "'n2'",                    \
        ",'previous_host':'" A64 A64 A64 A64 "a'"), ETOOBIG, "previous_host") \
    X(elected_previous_host_control, elected, ELE("7", "'n2'",                \
        ",'previous_host':'a\\tb'"), EBADVALUE, "previous_host")              \
    X(elected_wake_ok, elected, ELE("7", "'n2'", ",'wake':true"), OK, NULL)   \
    X(elected_wake_string, elected, ELE("7", "'n2'", ",'wake':'yes'"),        \
        ETYPE, "wake")                                                        \
    X(member_wake_ok, member, MEM("'n1'", "'dc1'", "5", ",'wake':true"),      \
        OK, NULL)                                                             \
    X(member_wake_number, member, MEM("'n1'", "'dc1'", "5", ",'wake':1"),     \
        ETYPE, "wake")                                                        \
    X(elected_fast_ok, elected, ELE("7", "'n2'", ",'fast_handover':true"),    \
        OK, NULL)                                                             \
    X(elected_fast_string, elected, ELE("7", "'n2'", ",'fast_handover':'1'"), \
        ETYPE, "fast_handover")                                               \
    X(member_fast_number, member, MEM("'n1'", "'dc1'", "5",                   \
        ",'fast_handover':0"), ETYPE, "fast_handover")                        \
    /* leader */                                                              \
    X(leader_progress_ok, leader, LEA("'n1'", "'PROGRESS'", "3", ""), OK, NULL) \
    X(leader_ready_ok, leader, LEA("'n1'", "'READY'", "3", ",'since_ms':5"),  \
        OK, NULL)                                                             \
    X(leader_id_missing, leader, "{'v':1,'status':'READY','epoch':3}",        \
        EMISSING, "id")                                                       \
    X(leader_status_missing, leader, "{'v':1,'id':'n1','epoch':3}", EMISSING, \
        "status")                                                             \
    X(leader_epoch_missing, leader, "{'v':1,'id':'n1','status':'READY'}",     \
        EMISSING, "epoch")                                                    \
    X(leader_id_bad, leader, LEA("'n/1'", "'READY'", "3", ""), EBADVALUE, "id") \
    X(leader_id_null, leader, LEA("null", "'READY'", "3", ""), ETYPE, "id")   \
    X(leader_status_unknown, leader, LEA("'n1'", "'DONE'", "3", ""),          \
        EBADVALUE, "status")                                                  \
    X(leader_status_lower, leader, LEA("'n1'", "'ready'", "3", ""),           \
        EBADVALUE, "status")                                                  \
    X(leader_status_empty, leader, LEA("'n1'", "''", "3", ""), EBADVALUE,     \
        "status")                                                             \
    X(leader_status_number, leader, LEA("'n1'", "2", "3", ""), ETYPE, "status") \
    X(leader_epoch_zero, leader, LEA("'n1'", "'READY'", "0", ""), ERANGE,     \
        "epoch")                                                              \
    X(leader_epoch_bool, leader, LEA("'n1'", "'READY'", "true", ""), ETYPE,   \
        "epoch")                                                              \
    X(leader_since_string, leader, LEA("'n1'", "'READY'", "3", ",'since_ms':'x'"), \
        ETYPE, "since_ms")                                                    \
    X(leader_since_negative, leader, LEA("'n1'", "'READY'", "3",              \
        ",'since_ms':-1"), ERANGE, "since_ms")                                \
    X(leader_duplicate_status, leader, LEA("'n1'", "'READY'", "3",            \
        ",'status':'PROGRESS'"), EBADVALUE, "status")                         \
    /* config */                                                              \
    X(config_minimal_ok, config, CFG(""), OK, NULL)                           \
    X(config_policy_number, config, CFG(",'policy':1"), ETYPE, "policy")      \
    X(config_policy_empty_ok, config, CFG(",'policy':''"), OK, NULL)          \
    X(config_policy_bad, config, CFG(",'policy':'../x'"), EBADVALUE, "policy") \
    X(config_sites_array, config, CFG(",'sites':[]"), ETYPE, "sites")         \
    X(config_site_value_string, config, CFG(",'sites':{'dc1':'100'}"), ETYPE, \
        "sites.dc1")                                                          \
    X(config_site_value_null, config, CFG(",'sites':{'dc1':null}"), ETYPE,    \
        "sites.dc1")                                                          \
    X(config_site_priority_big, config, CFG(",'sites':{'dc1':1000001}"),      \
        ERANGE, "sites.dc1")                                                  \
    X(config_site_priority_fraction, config, CFG(",'sites':{'dc1':0.5}"),     \
        ERANGE, "sites.dc1")                                                  \
    X(config_site_key_bad, config, CFG(",'sites':{'dc 1':1}"), EBADVALUE,     \
        "sites.dc 1")                                                         \
    X(config_site_key_empty, config, CFG(",'sites':{'':1}"), EBADVALUE,       \
        "sites.")                                                             \
    X(config_site_key_65, config, CFG(",'sites':{'" A64 "b':1}"), ETOOBIG,    \
        NULL)                                                                 \
    X(config_site_duplicate, config, CFG(",'sites':{'dc1':1,'dc2':2,'dc1':3}"), \
        EBADVALUE, "sites.dc1")                                               \
    X(config_watchdog_string, config, CFG(",'watchdog_ms':'5s'"), ETYPE,      \
        "watchdog_ms")                                                        \
    X(config_watchdog_zero_ok, config, CFG(",'watchdog_ms':0"), OK, NULL)     \
    X(config_watchdog_min_ok, config, CFG(",'watchdog_ms':100"), OK, NULL)    \
    X(config_watchdog_max_ok, config, CFG(",'watchdog_ms':3600000"), OK, NULL) \
    X(config_watchdog_low, config, CFG(",'watchdog_ms':99"), ERANGE,          \
        "watchdog_ms")                                                        \
    X(config_watchdog_high, config, CFG(",'watchdog_ms':3600001"), ERANGE,    \
        "watchdog_ms")                                                        \
    X(config_watchdog_negative, config, CFG(",'watchdog_ms':-100"), ERANGE,   \
        "watchdog_ms")                                                        \
    X(config_exclude_high, config, CFG(",'exclude_ms':86400001"), ERANGE,     \
        "exclude_ms")                                                         \
    X(config_exclude_one_ok, config, CFG(",'exclude_ms':1"), OK, NULL)        \
    X(config_options_array, config, CFG(",'options':['a']"), ETYPE, "options") \
    X(config_option_value_number, config, CFG(",'options':{'sticky':1}"),     \
        ETYPE, "options.sticky")                                              \
    X(config_option_value_256, config,                                        \
        CFG(",'options':{'k':'" A64 A64 A64 A64 "x'}"), ETOOBIG, "options.k") \
    X(config_option_value_255_ok, config,                                     \
        CFG(",'options':{'k':'" A64 A64 A64 A16 A16 A16 "aaaaaaaaaaaaaaa'}"), \
        OK, NULL)                                                             \
    X(config_option_key_bad, config, CFG(",'options':{'a=b':'x'}"),           \
        EBADVALUE, "options.a=b")                                             \
    X(config_option_duplicate, config, CFG(",'options':{'k':'1','k':'2'}"),   \
        EBADVALUE, "options.k")                                               \
    X(config_option_value_control, config, CFG(",'options':{'k':'a\\nb'}"),   \
        EBADVALUE, "options.k")                                               \
    X(config_paused_string, config, CFG(",'paused':'yes'"), ETYPE, "paused")  \
    X(config_paused_number, config, CFG(",'paused':1"), ETYPE, "paused")      \
    X(config_duplicate_paused, config, CFG(",'paused':true,'paused':false"),  \
        EBADVALUE, "paused")                                                  \
    /* config: issue 16's delays */                                           \
    X(config_settle_zero_ok, config, CFG(",'settle_ms':0"), OK, NULL)         \
    X(config_settle_max_ok, config, CFG(",'settle_ms':3600000"), OK, NULL)    \
    X(config_settle_high, config, CFG(",'settle_ms':3600001"), ERANGE,        \
        "settle_ms")                                                          \
    X(config_settle_negative, config, CFG(",'settle_ms':-1"), ERANGE,         \
        "settle_ms")                                                          \
    X(config_settle_fraction, config, CFG(",'settle_ms':1.5"), ERANGE,        \
        "settle_ms")                                                          \
    X(config_settle_string, config, CFG(",'settle_ms':'2s'"), ETYPE,          \
        "settle_ms")                                                          \
    X(config_settle_null, config, CFG(",'settle_ms':null"), ETYPE,            \
        "settle_ms")                                                          \
    X(config_settle_duplicate, config, CFG(",'settle_ms':1,'settle_ms':2"),   \
        EBADVALUE, "settle_ms")                                               \
    X(config_expect_zero_ok, config, CFG(",'expect':0"), OK, NULL)            \
    X(config_expect_max_ok, config, CFG(",'expect':10000"), OK, NULL)         \
    X(config_expect_high, config, CFG(",'expect':10001"), ERANGE, "expect")   \
    X(config_expect_negative, config, CFG(",'expect':-3"), ERANGE, "expect")  \
    X(config_expect_bool, config, CFG(",'expect':true"), ETYPE, "expect")     \
    X(config_failback_max_ok, config, CFG(",'failback_delay_ms':86400000"),   \
        OK, NULL)                                                             \
    X(config_failback_high, config, CFG(",'failback_delay_ms':86400001"),     \
        ERANGE, "failback_delay_ms")                                          \
    X(config_failback_negative, config, CFG(",'failback_delay_ms':-1"),       \
        ERANGE, "failback_delay_ms")                                          \
    X(config_failback_string, config, CFG(",'failback_delay_ms':'6000'"),     \
        ETYPE, "failback_delay_ms")                                           \
    X(config_min_move_max_ok, config, CFG(",'min_move_interval_ms':86400000"), \
        OK, NULL)                                                             \
    X(config_min_move_high, config, CFG(",'min_move_interval_ms':86400001"),  \
        ERANGE, "min_move_interval_ms")                                       \
    X(config_min_move_negative, config, CFG(",'min_move_interval_ms':-8000"), \
        ERANGE, "min_move_interval_ms")                                       \
    X(config_min_move_array, config, CFG(",'min_move_interval_ms':[1]"),      \
        ETYPE, "min_move_interval_ms")                                        \
    /* config: drains */                                                      \
    X(config_drains_empty_ok, config, DR(""), OK, NULL)                       \
    X(config_drain_ok, config, DR(DRN("1795662000000",                        \
        ",'reason':'kernel upgrade','by':'root@admin1'")), OK, NULL)          \
    X(config_drain_minimal_ok, config, DR(DRN("1", "")), OK, NULL)            \
    X(config_drain_until_max_ok, config, DR(DRN("9007199254740991", "")), OK, \
        NULL)                                                                 \
    X(config_drains_array, config, CFG(",'drains':[]"), ETYPE, "drains")      \
    X(config_drains_null, config, CFG(",'drains':null"), ETYPE, "drains")     \
    X(config_drain_bad_id, config, DR("'n 1':{'until_ms':5}"), EBADVALUE,     \
        "drains.n 1")                                                         \
    X(config_drain_dash_id, config, DR("'-n1':{'until_ms':5}"), EBADVALUE,    \
        "drains.-n1")                                                         \
    X(config_drain_empty_id, config, DR("'':{'until_ms':5}"), EBADVALUE,      \
        "drains.")                                                            \
    X(config_drain_id_65, config, DR("'" A64 "b':{'until_ms':5}"), ETOOBIG,   \
        NULL)                                                                 \
    X(config_drain_not_object, config, DR("'n1':1795662000000"), ETYPE,       \
        "drains.n1")                                                          \
    X(config_drain_array, config, DR("'n1':[5]"), ETYPE, "drains.n1")         \
    X(config_drain_until_missing, config, DR("'n1':{'reason':'x'}"),          \
        EMISSING, "drains.n1.until_ms")                                       \
    X(config_drain_until_zero, config, DR(DRN("0", "")), ERANGE,              \
        "drains.n1.until_ms")                                                 \
    X(config_drain_until_negative, config, DR(DRN("-5", "")), ERANGE,         \
        "drains.n1.until_ms")                                                 \
    X(config_drain_until_2p53, config, DR(DRN("9007199254740992", "")),       \
        ERANGE, "drains.n1.until_ms")                                         \
    X(config_drain_until_fraction, config, DR(DRN("5.5", "")), ERANGE,       \
        "drains.n1.until_ms")                                                 \
    X(config_drain_until_string, config, DR(DRN("'5'", "")), ETYPE,          \
        "drains.n1.until_ms")                                                 \
    X(config_drain_reason_number, config, DR(DRN("5", ",'reason':5")), ETYPE, \
        "drains.n1.reason")                                                   \
    X(config_drain_reason_newline, config, DR(DRN("5", ",'reason':'a\\nb'")), \
        EBADVALUE, "drains.n1.reason")                                        \
    X(config_drain_reason_160, config, DR(DRN("5", ",'reason':'"              \
        A64 A64 A16 A16 "'")), ETOOBIG, "drains.n1.reason")                   \
    X(config_drain_reason_159_ok, config, DR(DRN("5", ",'reason':'"           \
        A64 A64 A16 "aaaaaaaaaaaaaaa'")), OK, NULL)                           \
    X(config_drain_by_65, config, DR(DRN("5", ",'by':'" A64 "b'")), ETOOBIG,  \
        "drains.n1.by")                                                       \
    X(config_drain_by_tab, config, DR(DRN("5", ",'by':'a\\tb'")), EBADVALUE, \
        "drains.n1.by")                                                       \
    X(config_drain_duplicate, config, DR(DRN("5", "") "," "'n2':{'until_ms':5}," \
        DRN("6", "")), EBADVALUE, "drains.n1")                                \
    X(config_drain_duplicate_key, config, DR(DRN("5", ",'until_ms':6")),      \
        EBADVALUE, "drains.n1.until_ms")                                      \
    X(config_drain_unknown_field_ok, config, DR(DRN("5", ",'future':[1]")),   \
        OK, NULL)                                                             \
    /* switchover */                                                          \
    X(switchover_ok, switchover, SWI("4", "'n2'", ",'by':'alice@host'"), OK,  \
        NULL)                                                                 \
    X(switchover_to_null_ok, switchover, SWI("4", "null", ""), OK, NULL)      \
    X(switchover_id_missing, switchover, "{'v':1,'to':'n2'}", EMISSING, "id") \
    X(switchover_to_missing, switchover, "{'v':1,'id':4}", EMISSING, "to")    \
    X(switchover_id_zero_ok, switchover, SWI("0", "null", ""), OK, NULL)      \
    X(switchover_id_negative, switchover, SWI("-1", "'n2'", ""), ERANGE, "id") \
    X(switchover_id_2p53, switchover, SWI("9007199254740992", "'n2'", ""),    \
        ERANGE, "id")                                                         \
    X(switchover_id_string, switchover, SWI("'4'", "'n2'", ""), ETYPE, "id")  \
    X(switchover_to_number, switchover, SWI("4", "2", ""), ETYPE, "to")       \
    X(switchover_to_empty, switchover, SWI("4", "''", ""), EBADVALUE, "to")   \
    X(switchover_to_bad, switchover, SWI("4", "'-n2'", ""), EBADVALUE, "to")  \
    X(switchover_at_string, switchover, SWI("4", "'n2'", ",'at_ms':'x'"),     \
        ETYPE, "at_ms")                                                       \
    X(switchover_by_number, switchover, SWI("4", "'n2'", ",'by':7"), ETYPE,   \
        "by")                                                                 \
    X(switchover_by_65, switchover, SWI("4", "'n2'", ",'by':'" A64 "a'"),     \
        ETOOBIG, "by")                                                        \
    /* switchover: issue 16's site, due_ms and cancel */                      \
    X(switchover_site_ok, switchover, SWI("4", "null", ",'site':'dc2'"), OK,  \
        NULL)                                                                 \
    X(switchover_site_and_to, switchover, SWI("4", "'n2'", ",'site':'dc2'"),  \
        EBADVALUE, "site")                                                    \
    X(switchover_site_empty, switchover, SWI("4", "null", ",'site':''"),      \
        EBADVALUE, "site")                                                    \
    X(switchover_site_bad, switchover, SWI("4", "null", ",'site':'dc 2'"),    \
        EBADVALUE, "site")                                                    \
    X(switchover_site_dot, switchover, SWI("4", "null", ",'site':'.dc'"),     \
        EBADVALUE, "site")                                                    \
    X(switchover_site_number, switchover, SWI("4", "null", ",'site':2"),      \
        ETYPE, "site")                                                        \
    X(switchover_site_65, switchover, SWI("4", "null", ",'site':'" A64 "b'"), \
        ETOOBIG, "site")                                                      \
    X(switchover_site_duplicate, switchover,                                  \
        SWI("4", "null", ",'site':'dc1','site':'dc2'"), EBADVALUE, "site")    \
    X(switchover_due_ok, switchover, SWI("4", "'n2'", ",'due_ms':1795662000000"), \
        OK, NULL)                                                             \
    X(switchover_due_zero_ok, switchover, SWI("4", "'n2'", ",'due_ms':0"), OK, \
        NULL)                                                                 \
    X(switchover_due_negative, switchover, SWI("4", "'n2'", ",'due_ms':-1"),  \
        ERANGE, "due_ms")                                                     \
    X(switchover_due_2p53, switchover,                                        \
        SWI("4", "'n2'", ",'due_ms':9007199254740992"), ERANGE, "due_ms")     \
    X(switchover_due_fraction, switchover, SWI("4", "'n2'", ",'due_ms':0.5"), \
        ERANGE, "due_ms")                                                     \
    X(switchover_due_string, switchover,                                      \
        SWI("4", "'n2'", ",'due_ms':'2026-11-26T03:00:00Z'"), ETYPE, "due_ms") \
    X(switchover_cancel_ok, switchover, SWI("5", "null", ",'cancel':true"),   \
        OK, NULL)                                                             \
    X(switchover_cancel_false_ok, switchover,                                 \
        SWI("5", "null", ",'cancel':false"), OK, NULL)                        \
    X(switchover_cancel_number, switchover, SWI("5", "null", ",'cancel':1"),  \
        ETYPE, "cancel")                                                      \
    X(switchover_cancel_string, switchover,                                   \
        SWI("5", "null", ",'cancel':'yes'"), ETYPE, "cancel")                 \
    X(switchover_cancel_null, switchover, SWI("5", "null", ",'cancel':null"), \
        ETYPE, "cancel")                                                      \
    /* elected: issue 16's hold */                                            \
    X(elected_hold_ok, elected,                                               \
        HOLD("{'kind':'failback','node':'n1','until_ms':1795662000000}"), OK, \
        NULL)                                                                 \
    X(elected_hold_kind_only_ok, elected, HOLD("{'kind':'settle'}"), OK, NULL) \
    X(elected_hold_node_empty_ok, elected,                                    \
        HOLD("{'kind':'settle','node':'','until_ms':5}"), OK, NULL)           \
    X(elected_hold_unknown_field_ok, elected,                                 \
        HOLD("{'kind':'anti-flap','x':[1]}"), OK, NULL)                       \
    X(elected_hold_not_object, elected, HOLD("'settle'"), ETYPE, "hold")      \
    X(elected_hold_array, elected, HOLD("[]"), ETYPE, "hold")                 \
    X(elected_hold_kind_missing, elected, HOLD("{'node':'n1','until_ms':5}"), \
        EMISSING, "hold.kind")                                                \
    X(elected_hold_kind_empty, elected, HOLD("{'kind':''}"), EBADVALUE,       \
        "hold.kind")                                                          \
    X(elected_hold_kind_bad, elected, HOLD("{'kind':'anti flap'}"),           \
        EBADVALUE, "hold.kind")                                               \
    X(elected_hold_kind_number, elected, HOLD("{'kind':1}"), ETYPE,           \
        "hold.kind")                                                          \
    X(elected_hold_node_bad, elected, HOLD("{'kind':'failback','node':'n/1'}"), \
        EBADVALUE, "hold.node")                                               \
    X(elected_hold_node_number, elected,                                      \
        HOLD("{'kind':'failback','node':1}"), ETYPE, "hold.node")             \
    X(elected_hold_until_negative, elected,                                   \
        HOLD("{'kind':'settle','until_ms':-1}"), ERANGE, "hold.until_ms")     \
    X(elected_hold_until_string, elected,                                     \
        HOLD("{'kind':'settle','until_ms':'soon'}"), ETYPE, "hold.until_ms")  \
    X(elected_hold_duplicate_kind, elected,                                   \
        HOLD("{'kind':'settle','kind':'failback'}"), EBADVALUE, "hold.kind")  \
    /* history */                                                             \
    X(history_empty_ok, history, HIS("[]"), OK, NULL)                         \
    X(history_ok, history, HIS("[" HE("1", "'n1'", "") "," HE("2", "null",    \
        ",'at_ms':5") "]"), OK, NULL)                                         \
    X(history_entries_missing, history, "{'v':1}", EMISSING, "entries")       \
    X(history_entries_object, history, HIS("{}"), ETYPE, "entries")           \
    X(history_entry_not_object, history, HIS("[1]"), ETYPE, "entries[0]")     \
    X(history_entry_epoch_missing, history,                                   \
        HIS("[{'leader':'n1','elector':'n1','policy':'p','reason':''}]"),     \
        EMISSING, "entries[0].epoch")                                         \
    X(history_entry_leader_missing, history,                                  \
        HIS("[{'epoch':1,'elector':'n1','policy':'p','reason':''}]"),         \
        EMISSING, "entries[0].leader")                                        \
    X(history_entry_elector_missing, history,                                 \
        HIS("[{'epoch':1,'leader':'n1','policy':'p','reason':''}]"),          \
        EMISSING, "entries[0].elector")                                       \
    X(history_entry_policy_missing, history,                                  \
        HIS("[{'epoch':1,'leader':'n1','elector':'n1','reason':''}]"),        \
        EMISSING, "entries[0].policy")                                        \
    X(history_entry_reason_missing, history,                                  \
        HIS("[{'epoch':1,'leader':'n1','elector':'n1','policy':'p'}]"),       \
        EMISSING, "entries[0].reason")                                        \
    X(history_entry_epoch_zero, history, HIS("[" HE("1", "'n1'", "") ","      \
        HE("0", "'n1'", "") "]"), ERANGE, "entries[1].epoch")                 \
    X(history_entry_leader_bad, history, HIS("[" HE("1", "'a b'", "") "]"),   \
        EBADVALUE, "entries[0].leader")                                       \
    X(history_entry_at_string, history, HIS("[" HE("1", "'n1'",               \
        ",'at_ms':'x'") "]"), ETYPE, "entries[0].at_ms")                      \
    X(history_entry_duplicate_key, history, HIS("[" HE("1", "'n1'",           \
        ",'epoch':2") "]"), EBADVALUE, "entries[0].epoch")                    \
    /* issue 17: elected slots */                                            \
    X(elected_slots_ok, elected, ELS("[" SL("1", "'n3'", "8", "") ","         \
        SL("2", "null", "0", "") "]"), OK, NULL)                              \
    X(elected_slots_all_fields_ok, elected, ELS("[" SL("1", "'n3'", "8",      \
        ",'leader_site':'dc2','leader_znode':'n3_" HEX32 "_0000000003',"      \
        "'since_ms':1795662000000") "]"), OK, NULL)                           \
    X(elected_slots_empty_ok, elected, ELS("[]"), OK, NULL)                   \
    X(elected_slots_15_ok, elected, ELS("[" SL15 "]"), OK, NULL)              \
    X(elected_slots_16, elected, ELS("[" SL15 "," SL("16", "null", "0", "")   \
        "]"), ETOOBIG, "slots")                                               \
    X(elected_slots_object, elected, ELS("{}"), ETYPE, "slots")               \
    X(elected_slots_null, elected, ELS("null"), ETYPE, "slots")               \
    X(elected_slot_not_object, elected, ELS("[1]"), ETYPE, "slots[0]")        \
    X(elected_slot_slot_missing, elected, ELS("[{'leader':'n3','epoch':8}]"), \
        EMISSING, "slots[0].slot")                                            \
    X(elected_slot_leader_missing, elected, ELS("[{'slot':1,'epoch':8}]"),    \
        EMISSING, "slots[0].leader")                                          \
    X(elected_slot_epoch_missing, elected, ELS("[{'slot':1,'leader':null}]"), \
        EMISSING, "slots[0].epoch")                                           \
    X(elected_slot_zero, elected, ELS("[" SL("0", "'n3'", "8", "") "]"),      \
        ERANGE, "slots[0].slot")                                              \
    X(elected_slot_16, elected, ELS("[" SL("16", "'n3'", "8", "") "]"),       \
        ERANGE, "slots[0].slot")                                              \
    X(elected_slot_fraction, elected, ELS("[" SL("1.5", "'n3'", "8", "") "]"), \
        ERANGE, "slots[0].slot")                                              \
    X(elected_slot_string, elected, ELS("[" SL("'1'", "'n3'", "8", "") "]"),  \
        ETYPE, "slots[0].slot")                                               \
    X(elected_slot_not_from_one, elected, ELS("[" SL("2", "'n3'", "8", "")    \
        "]"), EBADVALUE, "slots[0].slot")                                     \
    X(elected_slot_gap, elected, ELS("[" SL("1", "'n3'", "8", "") ","         \
        SL("3", "'n4'", "9", "") "]"), EBADVALUE, "slots[1].slot")            \
    X(elected_slot_repeated, elected, ELS("[" SL("1", "'n3'", "8", "") ","    \
        SL("1", "'n4'", "9", "") "]"), EBADVALUE, "slots[1].slot")            \
    X(elected_slot_decreasing, elected, ELS("[" SL("2", "'n3'", "8", "") ","  \
        SL("1", "'n4'", "9", "") "]"), EBADVALUE, "slots[0].slot")            \
    X(elected_slot_leader_number, elected, ELS("[" SL("1", "3", "8", "")      \
        "]"), ETYPE, "slots[0].leader")                                       \
    X(elected_slot_leader_empty, elected, ELS("[" SL("1", "''", "8", "")      \
        "]"), EBADVALUE, "slots[0].leader")                                   \
    X(elected_slot_leader_bad, elected, ELS("[" SL("1", "'a b'", "8", "")     \
        "]"), EBADVALUE, "slots[0].leader")                                   \
    X(elected_slot_leader_holds_slot0, elected, ELS("[" SL("1", "'n2'", "8",  \
        "") "]"), EBADVALUE, "slots[0].leader")                               \
    X(elected_slot_leader_twice, elected, ELS("[" SL("1", "'n3'", "8", "")    \
        "," SL("2", "null", "0", "") "," SL("3", "'n3'", "9", "") "]"),       \
        EBADVALUE, "slots[2].leader")                                         \
    X(elected_slot_empty_twice_ok, elected, ELS("[" SL("1", "null", "0", "")  \
        "," SL("2", "null", "0", "") "]"), OK, NULL)                          \
    X(elected_slot_all_empty_ok, elected, ELE("7", "null",                    \
        ",'slots':[" SL("1", "null", "0", "") "]"), OK, NULL)                 \
    X(elected_slot_epoch_zero_held, elected, ELS("[" SL("1", "'n3'", "8", "") \
        "," SL("2", "'n4'", "0", "") "]"), ERANGE, "slots[1].epoch")          \
    X(elected_slot_epoch_kept_empty_ok, elected, ELS("[" SL("1", "null", "5", \
        "") "]"), OK, NULL)                                                   \
    X(elected_slot_epoch_negative, elected, ELS("[" SL("1", "null", "-1", "") \
        "]"), ERANGE, "slots[0].epoch")                                       \
    X(elected_slot_epoch_2p53, elected, ELS("[" SL("1", "'n3'",               \
        "9007199254740992", "") "]"), ERANGE, "slots[0].epoch")               \
    X(elected_slot_epoch_string, elected, ELS("[" SL("1", "'n3'", "'8'", "")  \
        "]"), ETYPE, "slots[0].epoch")                                        \
    X(elected_slot_site_bad, elected, ELS("[" SL("1", "'n3'", "8",            \
        ",'leader_site':'d c'") "]"), EBADVALUE, "slots[0].leader_site")      \
    X(elected_slot_znode_bad, elected, ELS("[" SL("1", "'n3'", "8",           \
        ",'leader_znode':'a/b'") "]"), EBADVALUE, "slots[0].leader_znode")    \
    X(elected_slot_since_negative, elected, ELS("[" SL("1", "'n3'", "8",      \
        ",'since_ms':-1") "]"), ERANGE, "slots[0].since_ms")                  \
    X(elected_slot_duplicate_key, elected, ELS("[" SL("1", "'n3'", "8",       \
        ",'epoch':9") "]"), EBADVALUE, "slots[0].epoch")                      \
    X(elected_slot_unknown_field_ok, elected, ELS("[" SL("1", "'n3'", "8",    \
        ",'future':{'x':1}") "]"), OK, NULL)                                  \
    X(elected_slots_duplicate_key, elected, ELE("7", "'n2'", ",'slots':[],"   \
        "'slots':[]"), EBADVALUE, "slots")                                    \
    /* issue 17: leader slot */                                               \
    X(leader_slot_ok, leader, LEA("'n1'", "'READY'", "3", ",'slot':3"), OK,   \
        NULL)                                                                 \
    X(leader_slot_zero_ok, leader, LEA("'n1'", "'READY'", "3", ",'slot':0"),  \
        OK, NULL)                                                             \
    X(leader_slot_15_ok, leader, LEA("'n1'", "'READY'", "3", ",'slot':15"),   \
        OK, NULL)                                                             \
    X(leader_slot_16, leader, LEA("'n1'", "'READY'", "3", ",'slot':16"),      \
        ERANGE, "slot")                                                       \
    X(leader_slot_negative, leader, LEA("'n1'", "'READY'", "3", ",'slot':-1"), \
        ERANGE, "slot")                                                       \
    X(leader_slot_fraction, leader, LEA("'n1'", "'READY'", "3",               \
        ",'slot':1.5"), ERANGE, "slot")                                       \
    X(leader_slot_string, leader, LEA("'n1'", "'READY'", "3", ",'slot':'1'"), \
        ETYPE, "slot")                                                        \
    /* issue 17: config leaders */                                            \
    X(config_leaders_ok, config, CFG(",'leaders':3"), OK, NULL)               \
    X(config_leaders_1_ok, config, CFG(",'leaders':1"), OK, NULL)             \
    X(config_leaders_16_ok, config, CFG(",'leaders':16"), OK, NULL)           \
    X(config_leaders_zero, config, CFG(",'leaders':0"), ERANGE, "leaders")    \
    X(config_leaders_17, config, CFG(",'leaders':17"), ERANGE, "leaders")     \
    X(config_leaders_negative, config, CFG(",'leaders':-2"), ERANGE,          \
        "leaders")                                                            \
    X(config_leaders_fraction, config, CFG(",'leaders':2.5"), ERANGE,         \
        "leaders")                                                            \
    X(config_leaders_string, config, CFG(",'leaders':'2'"), ETYPE, "leaders") \
    X(config_leaders_null, config, CFG(",'leaders':null"), ETYPE, "leaders")  \
    X(config_leaders_duplicate, config, CFG(",'leaders':2,'leaders':3"),      \
        EBADVALUE, "leaders")                                                 \
    /* issue 17: switchover from */                                           \
    X(switchover_from_ok, switchover, SWI("6", "null", ",'from':'n3'"), OK,   \
        NULL)                                                                 \
    X(switchover_from_to_ok, switchover, SWI("6", "'n4'", ",'from':'n3'"),    \
        OK, NULL)                                                             \
    X(switchover_from_site_ok, switchover, SWI("6", "null",                   \
        ",'from':'n3','site':'dc2'"), OK, NULL)                               \
    X(switchover_from_is_to, switchover, SWI("6", "'n3'", ",'from':'n3'"),    \
        EBADVALUE, "from")                                                    \
    X(switchover_from_empty, switchover, SWI("6", "null", ",'from':''"),      \
        EBADVALUE, "from")                                                    \
    X(switchover_from_bad, switchover, SWI("6", "null", ",'from':'n 3'"),     \
        EBADVALUE, "from")                                                    \
    X(switchover_from_65, switchover, SWI("6", "null", ",'from':'" A64 "b'"), \
        ETOOBIG, "from")                                                      \
    X(switchover_from_null, switchover, SWI("6", "null", ",'from':null"),     \
        ETYPE, "from")                                                        \
    X(switchover_from_number, switchover, SWI("6", "null", ",'from':3"),      \
        ETYPE, "from")                                                        \
    /* issue 17: history entry slot, member max_leaders */                    \
    X(history_entry_slot_ok, history, HIS("[" HE("1", "'n1'", ",'slot':2")    \
        "]"), OK, NULL)                                                       \
    X(history_entry_slot_16, history, HIS("[" HE("1", "'n1'", "") ","         \
        HE("2", "'n1'", ",'slot':16") "]"), ERANGE, "entries[1].slot")        \
    X(history_entry_slot_string, history, HIS("[" HE("1", "'n1'",             \
        ",'slot':'1'") "]"), ETYPE, "entries[0].slot")                        \
    X(member_max_leaders_ok, member, MEM("'n1'", "'dc1'", "5",                \
        ",'max_leaders':16"), OK, NULL)                                       \
    X(member_max_leaders_1_ok, member, MEM("'n1'", "'dc1'", "5",              \
        ",'max_leaders':1"), OK, NULL)                                        \
    X(member_max_leaders_zero, member, MEM("'n1'", "'dc1'", "5",              \
        ",'max_leaders':0"), ERANGE, "max_leaders")                           \
    X(member_max_leaders_17, member, MEM("'n1'", "'dc1'", "5",                \
        ",'max_leaders':17"), ERANGE, "max_leaders")                          \
    X(member_max_leaders_string, member, MEM("'n1'", "'dc1'", "5",            \
        ",'max_leaders':'16'"), ETYPE, "max_leaders")                         \
    /* issue 18: successor */                                                 \
    X(successor_ok, successor, SUC("[" SE("") "]"), OK, NULL)                 \
    X(successor_no_slots_ok, successor, SUC("[]"), OK, NULL)                  \
    X(successor_full_ok, successor, SUC("[" SE(",'successor_site':'dc2'")     \
        "," SEK("3", "'n4'", "'n5'", ",'successor_site':''") "]"), OK, NULL)  \
    X(successor_at_ok, successor, "{'v':1," SUC_TOP ",'at_ms':5,'slots':[]}", \
        OK, NULL)                                                             \
    X(successor_slot_0_key_ok, successor, SUC("[" SEK("0", "'n1'", "'n2'",    \
        "") "]"), OK, NULL)                                                   \
    X(successor_slot_15_ok, successor, SUC("[" SEK("15", "'n1'", "'n2'", "")  \
        "]"), OK, NULL)                                                       \
    X(successor_version_0_ok, successor, "{'v':1,'elected_version':0,"        \
        "'next_epoch':1,'elector':'n3','policy':'site','slots':[]}", OK,      \
        NULL)                                                                 \
    X(successor_version_max_ok, successor, "{'v':1,"                          \
        "'elected_version':2147483647,'next_epoch':9007199254740991,"         \
        "'elector':'n3','policy':'site','slots':[]}", OK, NULL)               \
    X(successor_unknown_fields_ok, successor, "{'v':1," SUC_TOP               \
        ",'future':[1,{}],'slots':[" SE(",'future':null") "]}", OK, NULL)     \
    X(successor_lacks_v, successor, "{" SUC_TOP ",'slots':[]}", EMISSING,     \
        "v")                                                                  \
    X(successor_v2, successor, "{'v':2," SUC_TOP ",'slots':[]}", EVERSION,    \
        "v")                                                                  \
    X(successor_lacks_elected_version, successor, "{'v':1,'next_epoch':9,"    \
        "'elector':'n3','policy':'site','slots':[]}", EMISSING,               \
        "elected_version")                                                    \
    X(successor_lacks_next_epoch, successor, "{'v':1,'elected_version':4,"    \
        "'elector':'n3','policy':'site','slots':[]}", EMISSING,               \
        "next_epoch")                                                         \
    X(successor_lacks_elector, successor, "{'v':1,'elected_version':4,"       \
        "'next_epoch':9,'policy':'site','slots':[]}", EMISSING, "elector")    \
    X(successor_lacks_policy, successor, "{'v':1,'elected_version':4,"        \
        "'next_epoch':9,'elector':'n3','slots':[]}", EMISSING, "policy")      \
    X(successor_lacks_slots, successor, "{'v':1," SUC_TOP "}", EMISSING,      \
        "slots")                                                              \
    X(successor_lacks_leader, successor, SUC("[" SE("") "," SEF("'slot':1,"   \
        SUC_ZL ",'successor':'n2'," SUC_ZS) "]"), EMISSING,                   \
        "slots[1].leader")                                                    \
    X(successor_lacks_leader_znode, successor, SUC("[" SEF("'leader':'n1',"   \
        "'successor':'n2'," SUC_ZS) "]"), EMISSING, "slots[0].leader_znode")  \
    X(successor_lacks_successor, successor, SUC("[" SEF("'leader':'n1',"      \
        SUC_ZL "," SUC_ZS) "]"), EMISSING, "slots[0].successor")              \
    X(successor_lacks_successor_znode, successor, SUC("["                     \
        SEF("'leader':'n1'," SUC_ZL ",'successor':'n2'") "]"), EMISSING,      \
        "slots[0].successor_znode")                                           \
    X(successor_version_negative, successor, "{'v':1,'elected_version':-1,"   \
        "'next_epoch':9,'elector':'n3','policy':'site','slots':[]}", ERANGE,  \
        "elected_version")                                                    \
    X(successor_version_2p31, successor, "{'v':1,"                            \
        "'elected_version':2147483648,'next_epoch':9,'elector':'n3',"         \
        "'policy':'site','slots':[]}", ERANGE, "elected_version")             \
    X(successor_version_fraction, successor, "{'v':1,"                        \
        "'elected_version':4.5,'next_epoch':9,'elector':'n3',"                \
        "'policy':'site','slots':[]}", ERANGE, "elected_version")             \
    X(successor_next_epoch_0, successor, "{'v':1,'elected_version':4,"        \
        "'next_epoch':0,'elector':'n3','policy':'site','slots':[]}", ERANGE,  \
        "next_epoch")                                                         \
    X(successor_next_epoch_2p53, successor, "{'v':1,'elected_version':4,"     \
        "'next_epoch':9007199254740992,'elector':'n3','policy':'site',"       \
        "'slots':[]}", ERANGE, "next_epoch")                                  \
    X(successor_at_negative, successor, "{'v':1," SUC_TOP ",'at_ms':-1,"      \
        "'slots':[]}", ERANGE, "at_ms")                                       \
    X(successor_slot_16, successor, SUC("[" SEK("16", "'n1'", "'n2'", "")     \
        "]"), ERANGE, "slots[0].slot")                                        \
    X(successor_slot_negative, successor, SUC("[" SEK("-1", "'n1'", "'n2'",   \
        "") "]"), ERANGE, "slots[0].slot")                                    \
    X(successor_slot_fraction, successor, SUC("[" SEK("1.5", "'n1'", "'n2'",  \
        "") "]"), ERANGE, "slots[0].slot")                                    \
    X(successor_slot_twice, successor, SUC("[" SEK("3", "'n1'", "'n2'", "")   \
        "," SE("") "," SEK("3", "'n4'", "'n5'", "") "]"), EBADVALUE,          \
        "slots[2].slot")                                                      \
    X(successor_switchover_ok, successor, SUC("[" SE(",'switchover':true")   \
        "]"), OK, NULL)                                                       \
    X(successor_switchover_false_ok, successor, SUC("[" SE(",'switchover':"   \
        "false") "]"), OK, NULL)                                              \
    X(successor_switchover_string, successor, SUC("[" SE(",'switchover':"     \
        "'yes'") "]"), ETYPE, "slots[0].switchover")                          \
    X(successor_switchover_slot_1, successor, SUC("[" SEK("1", "'n1'", "'n2'",\
        ",'switchover':true") "]"), EBADVALUE, "slots[0].switchover")         \
    X(successor_slot_0_twice, successor, SUC("[" SE("") "," SEK("0", "'n4'",  \
        "'n5'", "") "]"), EBADVALUE, "slots[1].slot")                         \
    X(successor_is_leader, successor, SUC("[" SE("") "," SEK("2", "'n4'",     \
        "'n4'", "") "]"), EBADVALUE, "slots[1].successor")                    \
    X(successor_duplicate_key, successor, "{'v':1," SUC_TOP                   \
        ",'next_epoch':10,'slots':[]}", EBADVALUE, "next_epoch")              \
    X(successor_entry_duplicate_key, successor, SUC("[" SE(",'leader':'n1'")  \
        "]"), EBADVALUE, "slots[0].leader")                                   \
    X(successor_leader_bad, successor, SUC("[" SEK("1", "'n 1'", "'n2'", "")  \
        "]"), EBADVALUE, "slots[0].leader")                                   \
    X(successor_leader_empty, successor, SUC("[" SEK("1", "''", "'n2'", "")   \
        "]"), EBADVALUE, "slots[0].leader")                                   \
    X(successor_leader_65, successor, SUC("[" SEK("1", "'" A64 "b'", "'n2'",  \
        "") "]"), ETOOBIG, "slots[0].leader")                                 \
    X(successor_successor_bad, successor, SUC("[" SEK("1", "'n1'", "'.n2'",   \
        "") "]"), EBADVALUE, "slots[0].successor")                            \
    X(successor_site_bad, successor, SUC("[" SE(",'successor_site':'d/c'")    \
        "]"), EBADVALUE, "slots[0].successor_site")                           \
    X(successor_leader_znode_empty, successor, SUC("[" SEF("'leader':'n1',"   \
        "'leader_znode':'','successor':'n2'," SUC_ZS) "]"), EBADVALUE,        \
        "slots[0].leader_znode")                                              \
    X(successor_leader_znode_bad, successor, SUC("[" SEF("'leader':'n1',"     \
        "'leader_znode':'a/b','successor':'n2'," SUC_ZS) "]"), EBADVALUE,     \
        "slots[0].leader_znode")                                              \
    X(successor_znode_empty, successor, SUC("[" SEF("'leader':'n1',"          \
        SUC_ZL ",'successor':'n2','successor_znode':''") "]"), EBADVALUE,     \
        "slots[0].successor_znode")                                           \
    X(successor_znode_121, successor, SUC("[" SEF("'leader':'n1'," SUC_ZL     \
        ",'successor':'n2','successor_znode':'" A64 A16 A16 A16 "aaaaaaaaa'") \
        "]"), ETOOBIG, "slots[0].successor_znode")                            \
    X(successor_elector_bad, successor, "{'v':1,'elected_version':4,"         \
        "'next_epoch':9,'elector':'-n3','policy':'site','slots':[]}",         \
        EBADVALUE, "elector")                                                 \
    X(successor_policy_empty, successor, "{'v':1,'elected_version':4,"        \
        "'next_epoch':9,'elector':'n3','policy':'','slots':[]}", EBADVALUE,   \
        "policy")                                                             \
    X(successor_version_string, successor, "{'v':1,'elected_version':'4',"    \
        "'next_epoch':9,'elector':'n3','policy':'site','slots':[]}", ETYPE,   \
        "elected_version")                                                    \
    X(successor_next_epoch_null, successor, "{'v':1,'elected_version':4,"     \
        "'next_epoch':null,'elector':'n3','policy':'site','slots':[]}",       \
        ETYPE, "next_epoch")                                                  \
    X(successor_at_bool, successor, "{'v':1," SUC_TOP ",'at_ms':true,"        \
        "'slots':[]}", ETYPE, "at_ms")                                        \
    X(successor_slots_object, successor, SUC("{}"), ETYPE, "slots")           \
    X(successor_slots_null, successor, SUC("null"), ETYPE, "slots")           \
    X(successor_entry_not_object, successor, SUC("[" SE("") ",'n2']"), ETYPE, \
        "slots[1]")                                                           \
    X(successor_leader_null, successor, SUC("[" SEK("1", "null", "'n2'", "")  \
        "]"), ETYPE, "slots[0].leader")                                       \
    X(successor_successor_number, successor, SUC("[" SEK("1", "'n1'", "2",    \
        "") "]"), ETYPE, "slots[0].successor")                                \
    X(successor_slot_string, successor, SUC("[" SEK("'1'", "'n1'", "'n2'",    \
        "") "]"), ETYPE, "slots[0].slot")                                     \
    X(successor_site_null, successor, SUC("[" SE(",'successor_site':null")    \
        "]"), ETYPE, "slots[0].successor_site")                               \
    X(successor_top_array, successor, "[" SUC("[]") "]", ETYPE, NULL)         \
    X(successor_trailing, successor, SUC("[]") "x", ETRAILING, NULL)          \
    X(successor_trailing_object, successor, SUC("[]") "{}", ETRAILING, NULL)  \
    X(successor_truncated, successor, "{'v':1," SUC_TOP ",'slots':[",         \
        ESYNTAX, NULL)                                                        \
    X(successor_bad_utf8, successor, "{'v':1," SUC_TOP ",'slots':[],"         \
        "'x':'\xC0\xAF'}", EUTF8, NULL)

#define X_DEFINE(name, kind, json, code, field)                               \
    static void test_##name(void)                                             \
    {                                                                         \
        check_dec(dec_##kind, #kind, json, sizeof(json) - 1, ZKELECT_##code,  \
            field);                                                           \
    }
DECODE_CASES(X_DEFINE)
#undef X_DEFINE

#define X_INFO(name, kind, json, code, field) { #name, test_##name },
static CU_TestInfo decode_tests[] = {
    DECODE_CASES(X_INFO)
    CU_TEST_INFO_NULL
};
#undef X_INFO

/* ------------------------------------------------------------------------ */
/* Suite "values": what a successful decode yields                          */
/* ------------------------------------------------------------------------ */

static int
decode_lit(dec_fn fn, const char *json)
{
    int n = load(json, strlen(json));

    errbuf[0] = 'X';
    return fn(work, n, errbuf, sizeof(errbuf));
}

static void
test_member_values(void)
{
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_member, MEM("'n1'", "'dc1'", "-7",
        ",'host':'h1','pid':1234,'version':'0.1.0','tags':['a','b'],"
        "'guid':'" HEX32 "'")), 0);
    CU_ASSERT_STRING_EQUAL(g_member.id, "n1");
    CU_ASSERT_STRING_EQUAL(g_member.site, "dc1");
    CU_ASSERT_EQUAL(g_member.priority, -7);
    CU_ASSERT_STRING_EQUAL(g_member.host, "h1");
    CU_ASSERT_EQUAL(g_member.pid, 1234);
    CU_ASSERT_STRING_EQUAL(g_member.version, "0.1.0");
    CU_ASSERT_EQUAL(g_member.ntags, 2);
    CU_ASSERT_STRING_EQUAL(g_member.tags[0], "a");
    CU_ASSERT_STRING_EQUAL(g_member.tags[1], "b");
    CU_ASSERT(g_member.eligible);
    CU_ASSERT(g_member.healthy);
    CU_ASSERT_STRING_EQUAL(g_member.guid, HEX32);
    CU_ASSERT_STRING_EQUAL(errbuf, "");
}

static void
test_member_defaults(void)
{
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_member,
        "{'v':1,'id':'n1','site':'','priority':0,'eligible':false,"
        "'healthy':false}"), 0);
    CU_ASSERT_STRING_EQUAL(g_member.site, "");
    CU_ASSERT_STRING_EQUAL(g_member.host, "");
    CU_ASSERT_EQUAL(g_member.pid, 0);
    CU_ASSERT_EQUAL(g_member.ntags, 0);
    CU_ASSERT(!g_member.eligible);
    CU_ASSERT(!g_member.healthy);
    CU_ASSERT_STRING_EQUAL(g_member.guid, "");
}

static void
test_member_unicode_escapes(void)
{
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_member, MEM("'n1'", "'dc1'", "5",
        ",'host':'\\u00e9\\ud83d\\ude00\\/'")), 0);
    CU_ASSERT_STRING_EQUAL(g_member.host, "\xC3\xA9\xF0\x9F\x98\x80/");
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_member, MEM("'\\u006e1'", "'dc1'",
        "5", "")), 0);
    CU_ASSERT_STRING_EQUAL(g_member.id, "n1");
}

static void
test_integral_forms(void)
{
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_member, MEM("'n1'", "'dc1'", "1.0e2",
        ",'pid':-0")), 0);
    CU_ASSERT_EQUAL(g_member.priority, 100);
    CU_ASSERT_EQUAL(g_member.pid, 0);
}

static void
test_elected_values(void)
{
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_elected,
        "{'v':1,'epoch':9007199254740991,'leader':'n2','leader_site':'dr',"
        "'previous':'n1','elector':'n3','policy':'site','reason':'n1 failed',"
        "'at_ms':1700000000000,'switchover_id':12,'config_version':-1,"
        "'leader_znode':'n2_0123456789abcdef0123456789abcdef_0000000042',"
        "'excluded':["
        XO("'n1'", "'watchdog'", "30000") "," XO("'n4'", "'takeover-failed'",
        "0") "]}"), 0);
    CU_ASSERT_EQUAL(g_elected.epoch, ZKE_EPOCH_MAX);
    CU_ASSERT_STRING_EQUAL(g_elected.leader, "n2");
    CU_ASSERT_STRING_EQUAL(g_elected.leader_site, "dr");
    CU_ASSERT_STRING_EQUAL(g_elected.previous, "n1");
    CU_ASSERT_STRING_EQUAL(g_elected.elector, "n3");
    CU_ASSERT_STRING_EQUAL(g_elected.policy, "site");
    CU_ASSERT_STRING_EQUAL(g_elected.reason, "n1 failed");
    CU_ASSERT_EQUAL(g_elected.at_ms, 1700000000000LL);
    CU_ASSERT_EQUAL(g_elected.switchover_id, 12);
    CU_ASSERT_EQUAL(g_elected.config_version, -1);
    CU_ASSERT_STRING_EQUAL(g_elected.leader_znode,
        "n2_0123456789abcdef0123456789abcdef_0000000042");
    CU_ASSERT_EQUAL_FATAL(g_elected.nexcluded, 2);
    CU_ASSERT_STRING_EQUAL(g_elected.excluded[0].id, "n1");
    CU_ASSERT_STRING_EQUAL(g_elected.excluded[0].reason, "watchdog");
    CU_ASSERT_EQUAL(g_elected.excluded[0].remaining_ms, 30000);
    CU_ASSERT_STRING_EQUAL(g_elected.excluded[1].id, "n4");
    CU_ASSERT_STRING_EQUAL(g_elected.excluded[1].reason, "takeover-failed");
    CU_ASSERT_EQUAL(g_elected.excluded[1].remaining_ms, 0);
}

/* issue 18: elected's hosts, where the leader and the one before ran (the
   fencing target of a member that did not follow); "" when absent */
static void
test_elected_hosts_values(void)
{
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_elected, ELE("7", "'n2'",
        ",'leader_host':'h2.example','previous_host':'10.0.0.1'")), 0);
    CU_ASSERT_STRING_EQUAL(g_elected.leader_host, "h2.example");
    CU_ASSERT_STRING_EQUAL(g_elected.previous_host, "10.0.0.1");
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_elected, ELE("7", "'n2'", "")), 0);
    CU_ASSERT_STRING_EQUAL(g_elected.leader_host, "");
    CU_ASSERT_STRING_EQUAL(g_elected.previous_host, "");
}

static void
test_elected_nulls(void)
{
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_elected,
        ELE("3", "null", ",'previous':null")), 0);
    CU_ASSERT_STRING_EQUAL(g_elected.leader, "");
    CU_ASSERT_STRING_EQUAL(g_elected.previous, "");
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_elected,
        ELE("3", "'n1'", ",'previous':''")), 0);
    CU_ASSERT_STRING_EQUAL(g_elected.previous, "");
    CU_ASSERT_EQUAL(g_elected.nexcluded, 0);
    CU_ASSERT_EQUAL(g_elected.switchover_id, 0);
}

static void
test_leader_values(void)
{
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_leader,
        LEA("'n1'", "'PROGRESS'", "42", ",'since_ms':99")), 0);
    CU_ASSERT_STRING_EQUAL(g_leader.id, "n1");
    CU_ASSERT_EQUAL(g_leader.status, ZKELECT_STATUS_PROGRESS);
    CU_ASSERT_EQUAL(g_leader.epoch, 42);
    CU_ASSERT_EQUAL(g_leader.since_ms, 99);
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_leader,
        LEA("'n1'", "'READY'", "43", "")), 0);
    CU_ASSERT_EQUAL(g_leader.status, ZKELECT_STATUS_READY);
    CU_ASSERT_EQUAL(g_leader.since_ms, 0);
}

/* issue 18: the leader znode carries the decision's previous leader and the
   leader's own record (site, host, priority), so that a watcher needs no
   read of nodes/<leader>; both optional, refused when malformed, and
   written back as read */
static void
test_leader_member_values(void)
{
    struct zke_leader l;
    char *out = NULL;
    size_t n;

    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_leader, LEA("'n1'", "'READY'", "7",
        ",'previous':'n0','member':{'site':'dc1','host':'h1.example','priority':-3}")), 0);
    CU_ASSERT_STRING_EQUAL(g_leader.previous, "n0");
    CU_ASSERT(g_leader.has_member);
    CU_ASSERT_STRING_EQUAL(g_leader.site, "dc1");
    CU_ASSERT_STRING_EQUAL(g_leader.host, "h1.example");
    CU_ASSERT_EQUAL(g_leader.priority, -3);
    l = g_leader;
    CU_ASSERT_EQUAL_FATAL(zke_leader_encode(&l, &out, &n), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"previous\":\"n0\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"member\":{\"site\":\"dc1\",\"host\":\"h1.example\","
                                  "\"priority\":-3}"));
    memset(&g_leader, 0, sizeof(g_leader));
    CU_ASSERT_EQUAL(zke_leader_decode(out, (int)n, &g_leader, errbuf, sizeof(errbuf)), 0);
    CU_ASSERT(memcmp(&g_leader, &l, sizeof(l)) == 0);
    free(out);
    /* absent: no member, no previous, and none written */
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_leader, LEA("'n1'", "'READY'", "7", "")), 0);
    CU_ASSERT(!g_leader.has_member);
    CU_ASSERT_STRING_EQUAL(g_leader.previous, "");
    l = g_leader;
    CU_ASSERT_EQUAL_FATAL(zke_leader_encode(&l, &out, &n), 0);
    CU_ASSERT_PTR_NULL(strstr(out, "member"));
    CU_ASSERT_PTR_NULL(strstr(out, "previous"));
    free(out);
    /* malformed: named */
    CU_ASSERT_NOT_EQUAL(decode_lit(dec_leader, LEA("'n1'", "'READY'", "7",
        ",'member':{'priority':'high'}")), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "member.priority"));
    CU_ASSERT_NOT_EQUAL(decode_lit(dec_leader, LEA("'n1'", "'READY'", "7",
        ",'member':[]")), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "member"));
    CU_ASSERT_NOT_EQUAL(decode_lit(dec_leader, LEA("'n1'", "'READY'", "7",
        ",'previous':'bad id'")), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "previous"));
}

/* issue 18: a succession entry's successor_host (the handover decision's
   leader_host): optional, omitted when "" */
static void
test_successor_host_values(void)
{
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_successor, SUC("[" SE(",'successor_host':'h5'") "]")),
                          0);
    CU_ASSERT_EQUAL_FATAL(g_successor.nslots, 1);
    CU_ASSERT_STRING_EQUAL(g_successor.slots[0].successor_host, "h5");
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_successor, SUC("[" SE("") "]")), 0);
    CU_ASSERT_STRING_EQUAL(g_successor.slots[0].successor_host, "");
    CU_ASSERT_NOT_EQUAL(decode_lit(dec_successor, SUC("[" SE(",'successor_host':5") "]")), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "successor_host"));
}

static void
test_config_values(void)
{
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_config, CFG(",'policy':'site',"
        "'sites':{'dc1':100,'dr':-5},'watchdog_ms':5000,'exclude_ms':60000,"
        "'options':{'sticky':'yes','other-site':''},'paused':true")), 0);
    CU_ASSERT_STRING_EQUAL(g_config.policy, "site");
    CU_ASSERT_EQUAL_FATAL(g_config.nsites, 2);
    CU_ASSERT_STRING_EQUAL(g_config.sites[0].site, "dc1");
    CU_ASSERT_EQUAL(g_config.sites[0].priority, 100);
    CU_ASSERT_STRING_EQUAL(g_config.sites[1].site, "dr");
    CU_ASSERT_EQUAL(g_config.sites[1].priority, -5);
    CU_ASSERT_EQUAL(g_config.watchdog_ms, 5000);
    CU_ASSERT_EQUAL(g_config.exclude_ms, 60000);
    CU_ASSERT_EQUAL_FATAL(g_config.noptions, 2);
    CU_ASSERT_STRING_EQUAL(g_config.options[0].key, "sticky");
    CU_ASSERT_STRING_EQUAL(g_config.options[0].value, "yes");
    CU_ASSERT_STRING_EQUAL(g_config.options[1].key, "other-site");
    CU_ASSERT_STRING_EQUAL(g_config.options[1].value, "");
    CU_ASSERT(g_config.paused);
}

static void
test_config_defaults(void)
{
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_config, "{'v':1,'future':[1]}"), 0);
    CU_ASSERT_STRING_EQUAL(g_config.policy, "");
    CU_ASSERT_EQUAL(g_config.nsites, 0);
    CU_ASSERT_EQUAL(g_config.watchdog_ms, 0);
    CU_ASSERT_EQUAL(g_config.exclude_ms, 0);
    CU_ASSERT_EQUAL(g_config.noptions, 0);
    CU_ASSERT(!g_config.paused);
}

static void
test_config_dr_values(void)
{
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_config, CFG(",'settle_ms':0,'expect':5,"
        "'failback_delay_ms':6000,'min_move_interval_ms':86400000,'drains':{"
        "'n1':{'until_ms':1795662000000,'reason':'kernel upgrade','by':'root@a'},"
        "'db-2.x':{'until_ms':1}}")), 0);
    CU_ASSERT(g_config.settle_set);
    CU_ASSERT_EQUAL(g_config.settle_ms, 0);
    CU_ASSERT_EQUAL(g_config.expect, 5);
    CU_ASSERT(g_config.failback_set);
    CU_ASSERT_EQUAL(g_config.failback_delay_ms, 6000);
    CU_ASSERT(g_config.min_move_set);
    CU_ASSERT_EQUAL(g_config.min_move_interval_ms, ZKE_DELAY_MAX);
    CU_ASSERT_EQUAL_FATAL(g_config.ndrains, 2);
    CU_ASSERT_STRING_EQUAL(g_config.drains[0].id, "n1");
    CU_ASSERT_EQUAL(g_config.drains[0].until_ms, 1795662000000LL);
    CU_ASSERT_STRING_EQUAL(g_config.drains[0].reason, "kernel upgrade");
    CU_ASSERT_STRING_EQUAL(g_config.drains[0].by, "root@a");
    CU_ASSERT_STRING_EQUAL(g_config.drains[1].id, "db-2.x");
    CU_ASSERT_EQUAL(g_config.drains[1].until_ms, 1);
    CU_ASSERT_STRING_EQUAL(g_config.drains[1].reason, "");
    CU_ASSERT_STRING_EQUAL(g_config.drains[1].by, "");
    /* absent: each node's default, told apart from an explicit 0 */
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_config, CFG(",'min_move_interval_ms':0")), 0);
    CU_ASSERT(!g_config.settle_set);
    CU_ASSERT(!g_config.failback_set);
    CU_ASSERT(g_config.min_move_set);
    CU_ASSERT_EQUAL(g_config.min_move_interval_ms, 0);
    CU_ASSERT_EQUAL(g_config.expect, 0);
    CU_ASSERT_EQUAL(g_config.ndrains, 0);
}

static void
test_switchover_dr_values(void)
{
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_switchover,
        SWI("8", "null", ",'site':'dc2','due_ms':1795662000000")), 0);
    CU_ASSERT_STRING_EQUAL(g_switchover.site, "dc2");
    CU_ASSERT_STRING_EQUAL(g_switchover.to, "");
    CU_ASSERT_EQUAL(g_switchover.due_ms, 1795662000000LL);
    CU_ASSERT(!g_switchover.cancel);
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_switchover, SWI("9", "null", ",'cancel':true")), 0);
    CU_ASSERT(g_switchover.cancel);
    CU_ASSERT_STRING_EQUAL(g_switchover.site, "");
    CU_ASSERT_EQUAL(g_switchover.due_ms, 0);
}

static void
test_elected_hold_values(void)
{
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_elected,
        HOLD("{'kind':'failback','node':'n1','until_ms':1795662000000}")), 0);
    CU_ASSERT_STRING_EQUAL(g_elected.hold.kind, "failback");
    CU_ASSERT_STRING_EQUAL(g_elected.hold.node, "n1");
    CU_ASSERT_EQUAL(g_elected.hold.until_ms, 1795662000000LL);
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_elected, ELE("7", "'n2'", "")), 0);
    CU_ASSERT_STRING_EQUAL(g_elected.hold.kind, "");
    CU_ASSERT_STRING_EQUAL(g_elected.hold.node, "");
    CU_ASSERT_EQUAL(g_elected.hold.until_ms, 0);
}

static void
test_switchover_values(void)
{
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_switchover,
        SWI("8", "'n2'", ",'at_ms':77,'by':'ops team'")), 0);
    CU_ASSERT_EQUAL(g_switchover.id, 8);
    CU_ASSERT_STRING_EQUAL(g_switchover.to, "n2");
    CU_ASSERT_EQUAL(g_switchover.at_ms, 77);
    CU_ASSERT_STRING_EQUAL(g_switchover.by, "ops team");
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_switchover, SWI("9", "null", "")), 0);
    CU_ASSERT_STRING_EQUAL(g_switchover.to, "");
    CU_ASSERT_STRING_EQUAL(g_switchover.by, "");
}

static void
test_history_values(void)
{
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_history, HIS("[" HE("5", "'n1'", "")
        "," HE("6", "null", ",'at_ms':10") "]")), 0);
    CU_ASSERT_EQUAL_FATAL(g_history.n, 2);
    CU_ASSERT_EQUAL(g_history.entries[0].epoch, 5);
    CU_ASSERT_STRING_EQUAL(g_history.entries[0].leader, "n1");
    CU_ASSERT_STRING_EQUAL(g_history.entries[0].elector, "n1");
    CU_ASSERT_STRING_EQUAL(g_history.entries[0].policy, "site");
    CU_ASSERT_STRING_EQUAL(g_history.entries[0].reason, "r");
    CU_ASSERT_EQUAL(g_history.entries[0].at_ms, 0);
    CU_ASSERT_EQUAL(g_history.entries[1].epoch, 6);
    CU_ASSERT_STRING_EQUAL(g_history.entries[1].leader, "");
    CU_ASSERT_EQUAL(g_history.entries[1].at_ms, 10);
}

/* On failure the output struct is zeroed, not left half-filled. */
static void
test_failure_zeroes_struct(void)
{
    static const struct zke_elected zero;

    memset(&g_elected, 0xa5, sizeof(g_elected));
    CU_ASSERT_EQUAL(decode_lit(dec_elected,
        ELX("[" XO("'n3'", "'watchdog'", "1") ",5]")), ZKELECT_ETYPE);
    CU_ASSERT(memcmp(&g_elected, &zero, sizeof(zero)) == 0);
    memset(&g_member, 0xa5, sizeof(g_member));
    CU_ASSERT_EQUAL(zke_member_decode(NULL, -1, &g_member, NULL, 0),
        ZKELECT_EMISSING);
    CU_ASSERT_EQUAL(g_member.id[0], '\0');
    CU_ASSERT_EQUAL(g_member.priority, 0);
}

static void
test_null_data(void)
{
    /* len -1 is ZooKeeper's NULL data, whatever buf points to. */
    check_raw(dec_member, "member", NULL, -1, ZKELECT_EMISSING, NULL);
    check_raw(dec_elected, "elected", "{}", -1, ZKELECT_EMISSING, NULL);
    check_raw(dec_leader, "leader", NULL, -1, ZKELECT_EMISSING, NULL);
    check_raw(dec_config, "config", NULL, -1, ZKELECT_EMISSING, NULL);
    check_raw(dec_switchover, "switchover", NULL, -1, ZKELECT_EMISSING, NULL);
    check_raw(dec_history, "history", NULL, -1, ZKELECT_EMISSING, NULL);
    check_raw(dec_successor, "successor", NULL, -1, ZKELECT_EMISSING, NULL);
}

static void
test_bad_arguments(void)
{
    check_raw(dec_member, "member", NULL, 3, ZKELECT_EINVAL, NULL);
    check_raw(dec_member, "member", "{}", -2, ZKELECT_EINVAL, NULL);
    check_raw(dec_member, "member", NULL, 0, ZKELECT_ESYNTAX, NULL);
    CU_ASSERT_EQUAL(zke_member_decode("{}", 2, NULL, NULL, 0), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_elected_decode("{}", 2, NULL, NULL, 0), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_leader_decode("{}", 2, NULL, NULL, 0), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_config_decode("{}", 2, NULL, NULL, 0), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_switchover_decode("{}", 2, NULL, NULL, 0),
        ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_history_decode("{}", 2, NULL, NULL, 0), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_successor_decode("{}", 2, NULL, NULL, 0),
        ZKELECT_EINVAL);
    check_raw(dec_successor, "successor", NULL, 3, ZKELECT_EINVAL, NULL);
}

/* buf is not NUL-terminated: only len bytes count, the rest is never read. */
static void
test_not_nul_terminated(void)
{
    static const char src[] = "{\"v\":1,\"id\":\"n1\",\"status\":\"READY\",\"epoch\":3}";
    char *exact;
    size_t n = sizeof(src) - 1;

    exact = malloc(n);     /* ASan flags any read past the end */
    CU_ASSERT_FATAL(exact != NULL);
    memcpy(exact, src, n);
    check_raw(dec_leader, "leader", exact, (int)n, 0, NULL);
    /* A prefix of a valid payload is truncated JSON. */
    check_raw(dec_leader, "leader", exact, (int)n - 1, ZKELECT_ESYNTAX, NULL);
    free(exact);
}

/* A sequence cut by len is truncated even if the next byte would complete it. */
static void
test_utf8_cut_by_len(void)
{
    static const char src[] = "{\"v\":1}\xE2\x82\xAC";
    char *exact;
    size_t n = sizeof(src) - 1;

    exact = malloc(n);
    CU_ASSERT_FATAL(exact != NULL);
    memcpy(exact, src, n);
    check_raw(dec_config, "config", exact, (int)n, ZKELECT_ETRAILING, NULL);
    check_raw(dec_config, "config", exact, (int)n - 1, ZKELECT_EUTF8, NULL);
    check_raw(dec_config, "config", exact, (int)n - 2, ZKELECT_EUTF8, NULL);
    free(exact);
}


/* Issue 17: the slots' values, and messages that name the slot's field. */
static void
test_slots_values(void)
{
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_elected, ELS("[" SL("1", "'n3'", "8",
        ",'leader_site':'dc2','leader_znode':'n3_x_1','since_ms':42") ","
        SL("2", "null", "5", "") "]")), 0);
    CU_ASSERT_EQUAL(g_elected.nslots, 2);
    CU_ASSERT_EQUAL(g_elected.slots[0].slot, 1);
    CU_ASSERT_STRING_EQUAL(g_elected.slots[0].leader, "n3");
    CU_ASSERT_STRING_EQUAL(g_elected.slots[0].leader_site, "dc2");
    CU_ASSERT_STRING_EQUAL(g_elected.slots[0].leader_znode, "n3_x_1");
    CU_ASSERT_EQUAL(g_elected.slots[0].epoch, 8);
    CU_ASSERT_EQUAL(g_elected.slots[0].since_ms, 42);
    CU_ASSERT_EQUAL(g_elected.slots[1].slot, 2);
    CU_ASSERT_STRING_EQUAL(g_elected.slots[1].leader, "");
    CU_ASSERT_EQUAL(g_elected.slots[1].epoch, 5);
    CU_ASSERT_EQUAL(g_elected.slots[1].since_ms, 0);
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_elected, ELE("7", "'n2'", "")), 0);
    CU_ASSERT_EQUAL(g_elected.nslots, 0);
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_config, CFG(",'leaders':16")), 0);
    CU_ASSERT_EQUAL(g_config.leaders, 16);
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_config, CFG("")), 0);
    CU_ASSERT_EQUAL(g_config.leaders, 1);
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_member, MEM_OK), 0);
    CU_ASSERT_EQUAL(g_member.max_leaders, 1);
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_member, MEM("'n1'", "'dc1'", "5",
        ",'max_leaders':16")), 0);
    CU_ASSERT_EQUAL(g_member.max_leaders, 16);
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_leader, LEA("'n1'", "'READY'", "3",
        ",'slot':15")), 0);
    CU_ASSERT_EQUAL(g_leader.slot, 15);
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_switchover, SWI("6", "'n4'",
        ",'from':'n3'")), 0);
    CU_ASSERT_STRING_EQUAL(g_switchover.from, "n3");
    CU_ASSERT_STRING_EQUAL(g_switchover.to, "n4");
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_history, HIS("[" HE("1", "'n1'",
        ",'slot':2") "," HE("2", "'n1'", "") "]")), 0);
    CU_ASSERT(g_history.entries[0].slot == 2 && g_history.entries[1].slot == 0);
}

static void
test_msg_slots(void)
{
    CU_ASSERT_EQUAL(decode_lit(dec_elected, ELS("[" SL("1", "'n3'", "8", "")
        "," SL("2", "'n4'", "0", "") "]")), ZKELECT_ERANGE);
    CU_ASSERT_STRING_EQUAL(errbuf, "elected: field \"slots[1].epoch\": "
        "expected an integer from 1 to 9007199254740991");
    CU_ASSERT_EQUAL(decode_lit(dec_elected, ELS("[" SL("1", "'n3'", "8", "")
        "," SL("3", "'n4'", "9", "") "]")), ZKELECT_EBADVALUE);
    CU_ASSERT_STRING_EQUAL(errbuf, "elected: field \"slots[1].slot\": slot 3 "
        "where slot 2 was expected (slots 1 to N-1, each once, in order)");
    CU_ASSERT_EQUAL(decode_lit(dec_elected, ELS("[" SL("1", "'n2'", "8", "")
        "]")), ZKELECT_EBADVALUE);
    CU_ASSERT_STRING_EQUAL(errbuf, "elected: field \"slots[0].leader\": node "
        "\"n2\" already holds slot 0 (a node holds at most one slot)");
    CU_ASSERT_EQUAL(decode_lit(dec_switchover, SWI("6", "'n3'",
        ",'from':'n3'")), ZKELECT_EBADVALUE);
    CU_ASSERT_STRING_EQUAL(errbuf, "switchover: field \"from\": a switchover "
        "moves a slot away from \"from\", not to it (\"to\" is the same node)");
}

/* Issue 18: what a successor decode yields, and zke_successor_slot(). */
static void
test_successor_values(void)
{
    const struct zke_succ *x;

    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_successor, "{'v':1,"
        "'elected_version':2147483647,'next_epoch':9007199254740991,"
        "'elector':'n3','policy':'site','at_ms':1795662000000,'slots':["
        SEK("3", "'n4'", "'n5'", ",'successor_site':'dc2'") "," SE("") "]}"),
        0);
    CU_ASSERT_STRING_EQUAL(errbuf, "");
    CU_ASSERT_EQUAL(g_successor.elected_version, INT32_MAX);
    CU_ASSERT_EQUAL(g_successor.next_epoch, ZKE_EPOCH_MAX);
    CU_ASSERT_STRING_EQUAL(g_successor.elector, "n3");
    CU_ASSERT_STRING_EQUAL(g_successor.policy, "site");
    CU_ASSERT_EQUAL(g_successor.at_ms, 1795662000000LL);
    CU_ASSERT_EQUAL_FATAL(g_successor.nslots, 2);
    x = &g_successor.slots[0];
    CU_ASSERT_EQUAL(x->slot, 3);
    CU_ASSERT_STRING_EQUAL(x->leader, "n4");
    CU_ASSERT_STRING_EQUAL(x->leader_znode, "n1_" HEX32 "_0000000001");
    CU_ASSERT_STRING_EQUAL(x->successor, "n5");
    CU_ASSERT_STRING_EQUAL(x->successor_site, "dc2");
    CU_ASSERT_STRING_EQUAL(x->successor_znode, "n2_" HEX32 "_0000000002");
    CU_ASSERT_EQUAL(g_successor.slots[1].slot, 0);      /* no key: slot 0 */
    CU_ASSERT_STRING_EQUAL(g_successor.slots[1].successor_site, "");
    CU_ASSERT_PTR_EQUAL(zke_successor_slot(&g_successor, 3),
        &g_successor.slots[0]);
    CU_ASSERT_PTR_EQUAL(zke_successor_slot(&g_successor, 0),
        &g_successor.slots[1]);
    CU_ASSERT_PTR_NULL(zke_successor_slot(&g_successor, 1));
    CU_ASSERT_PTR_NULL(zke_successor_slot(&g_successor, -1));
    CU_ASSERT_PTR_NULL(zke_successor_slot(&g_successor, ZKE_LEADERS_MAX));
    CU_ASSERT_PTR_NULL(zke_successor_slot(NULL, 0));
    /* only the entries in use count */
    g_successor.nslots = 1;
    CU_ASSERT_PTR_NULL(zke_successor_slot(&g_successor, 0));
    g_successor.nslots = -1;
    CU_ASSERT_PTR_NULL(zke_successor_slot(&g_successor, 3));
    /* at_ms absent is 0; an empty record has no entry for slot 0 */
    CU_ASSERT_EQUAL_FATAL(decode_lit(dec_successor, SUC("[]")), 0);
    CU_ASSERT_EQUAL(g_successor.at_ms, 0);
    CU_ASSERT_EQUAL(g_successor.nslots, 0);
    CU_ASSERT_EQUAL(g_successor.elected_version, 4);
    CU_ASSERT_EQUAL(g_successor.next_epoch, 9);
    CU_ASSERT_PTR_NULL(zke_successor_slot(&g_successor, 0));
}

static void
test_msg_successor(void)
{
    CU_ASSERT_EQUAL(decode_lit(dec_successor, SUC("[" SE("") "," SEK("2",
        "'n4'", "'n5'", "") "," SEK("0", "'n6'", "'n7'", "") "]")),
        ZKELECT_EBADVALUE);
    CU_ASSERT_STRING_EQUAL(errbuf, "successor: field \"slots[2].slot\": slot 0 "
        "given twice (slots[0] is slot 0 too)");
    CU_ASSERT_EQUAL(decode_lit(dec_successor, SUC("[" SE("") "," SEK("2",
        "'n4'", "'n4'", "") "]")), ZKELECT_EBADVALUE);
    CU_ASSERT_STRING_EQUAL(errbuf, "successor: field \"slots[1].successor\": "
        "node \"n4\" is the slot's leader (a leader does not succeed itself)");
    CU_ASSERT_EQUAL(decode_lit(dec_successor, SUC("[" SEF("'leader':'n1',"
        SUC_ZL ",'successor':'n2','successor_znode':''") "]")),
        ZKELECT_EBADVALUE);
    CU_ASSERT_STRING_EQUAL(errbuf, "successor: field \"slots[0].successor_znode\""
        ": invalid znode name \"\" (1 to 120 bytes of A-Z a-z 0-9 . _ -, not "
        "starting with '.' or '-')");
    CU_ASSERT_EQUAL(decode_lit(dec_successor, "{'v':1,'elected_version':-1,"
        "'next_epoch':9,'elector':'n3','policy':'site','slots':[]}"),
        ZKELECT_ERANGE);
    CU_ASSERT_STRING_EQUAL(errbuf, "successor: field \"elected_version\": "
        "expected an integer from 0 to 2147483647");
    CU_ASSERT_EQUAL(decode_lit(dec_successor, SUC("[" SEF("'leader':'n1',"
        SUC_ZL "," SUC_ZS) "]")), ZKELECT_EMISSING);
    CU_ASSERT_STRING_EQUAL(errbuf, "successor: field \"slots[0].successor\": "
        "missing");
}

static CU_TestInfo values_tests[] = {
    { "elected_hosts", test_elected_hosts_values },
    { "member_values", test_member_values },
    { "member_defaults", test_member_defaults },
    { "member_unicode_escapes", test_member_unicode_escapes },
    { "integral_forms", test_integral_forms },
    { "elected_values", test_elected_values },
    { "elected_nulls", test_elected_nulls },
    { "leader_values", test_leader_values },
    { "leader_member_values", test_leader_member_values },
    { "successor_host_values", test_successor_host_values },
    { "config_values", test_config_values },
    { "config_defaults", test_config_defaults },
    { "switchover_values", test_switchover_values },
    { "config_dr_values", test_config_dr_values },
    { "switchover_dr_values", test_switchover_dr_values },
    { "elected_hold_values", test_elected_hold_values },
    { "history_values", test_history_values },
    { "failure_zeroes_struct", test_failure_zeroes_struct },
    { "null_data", test_null_data },
    { "bad_arguments", test_bad_arguments },
    { "not_nul_terminated", test_not_nul_terminated },
    { "utf8_cut_by_len", test_utf8_cut_by_len },
    { "slots_values", test_slots_values },
    { "msg_slots", test_msg_slots },
    { "successor_values", test_successor_values },
    { "msg_successor", test_msg_successor },
    CU_TEST_INFO_NULL
};

/* ------------------------------------------------------------------------ */
/* Suite "generated": payloads built at run time                            */
/* ------------------------------------------------------------------------ */

static void
check_sb(dec_fn fn, const char *kind, int want, const char *field)
{
    check_dec(fn, kind, sb.buf, sb.len, want, field);
}

/* A member payload padded with spaces to exactly size bytes. */
static void
build_padded_member(size_t size)
{
    sb_reset();
    sb_add(MEM_OK);
    CU_ASSERT_FATAL(size >= sb.len && size < sizeof(sb.buf));
    memset(sb.buf + sb.len, ' ', size - sb.len);
    sb.len = size;
    sb.buf[sb.len] = '\0';
}

static void
test_payload_max_ok(void)
{
    build_padded_member(ZKE_PAYLOAD_MAX);
    check_sb(dec_member, "member", 0, NULL);
}

static void
test_payload_too_big(void)
{
    build_padded_member(ZKE_PAYLOAD_MAX + 1);
    check_sb(dec_member, "member", ZKELECT_ETOOBIG, NULL);
}

/* Size is checked before anything else: bad UTF-8 past the limit is ETOOBIG. */
static void
test_payload_too_big_first(void)
{
    memset(work, '\xff', ZKE_PAYLOAD_MAX + 1);
    check_raw(dec_member, "member", work, ZKE_PAYLOAD_MAX + 1, ZKELECT_ETOOBIG,
        NULL);
}

static void
test_nesting_ok(void)
{
    sb_reset();
    sb_add("{'v':1,'id':'n1','site':'','priority':1,'eligible':true,"
        "'healthy':true,'deep':");
    sb_repeat("[", 60);
    sb_repeat("]", 60);
    sb_add("}");
    check_sb(dec_member, "member", 0, NULL);
}

static void
test_nesting_too_deep(void)
{
    sb_reset();
    sb_add("{'v':1,'deep':");
    sb_repeat("[", 2000);
    sb_repeat("]", 2000);
    sb_add("}");
    check_sb(dec_member, "member", ZKELECT_ESYNTAX, NULL);
}

static void
test_tags_many(void)
{
    int i;

    sb_reset();
    sb_add("{'v':1,'id':'n1','site':'','priority':1,'eligible':true,"
        "'healthy':true,'tags':[");
    for (i = 0; i < 1000; i++)
        sb_addf("%s't%d'", i ? "," : "", i);
    sb_add("]}");
    check_sb(dec_member, "member", ZKELECT_ETOOBIG, "tags");
}

static void
build_exclusions(int n)
{
    int i;

    sb_reset();
    sb_add("{'v':1,'epoch':7,'leader':'n2'," ELE_TAIL ",'excluded':[");
    for (i = 0; i < n; i++)
        sb_addf("%s{'id':'x%d','reason':'watchdog','remaining_ms':%d}",
            i ? "," : "", i, i * 1000);
    sb_add("]}");
}

static void
test_exclusions_64_ok(void)
{
    build_exclusions(ZKE_EXCLUDED_MAX);
    check_sb(dec_elected, "elected", 0, NULL);
    CU_ASSERT_EQUAL(g_elected.nexcluded, ZKE_EXCLUDED_MAX);
    CU_ASSERT_STRING_EQUAL(g_elected.excluded[63].id, "x63");
    CU_ASSERT_EQUAL(g_elected.excluded[63].remaining_ms, 63000);
}

static void
test_exclusions_65(void)
{
    build_exclusions(ZKE_EXCLUDED_MAX + 1);
    check_sb(dec_elected, "elected", ZKELECT_ETOOBIG, "excluded");
}

static void
build_sites(int n)
{
    int i;

    sb_reset();
    sb_add("{'v':1,'sites':{");
    for (i = 0; i < n; i++)
        sb_addf("%s'dc%d':%d", i ? "," : "", i, i);
    sb_add("}}");
}

static void
test_sites_32_ok(void)
{
    build_sites(ZKE_SITES_MAX);
    check_sb(dec_config, "config", 0, NULL);
    CU_ASSERT_EQUAL(g_config.nsites, ZKE_SITES_MAX);
    CU_ASSERT_STRING_EQUAL(g_config.sites[31].site, "dc31");
    CU_ASSERT_EQUAL(g_config.sites[31].priority, 31);
}

static void
test_sites_33(void)
{
    build_sites(ZKE_SITES_MAX + 1);
    check_sb(dec_config, "config", ZKELECT_ETOOBIG, "sites");
}

static void
build_drains(int n)
{
    int i;

    sb_reset();
    sb_add("{'v':1,'drains':{");
    for (i = 0; i < n; i++)
        sb_addf("%s'n%d':{'until_ms':%d}", i ? "," : "", i, i + 1);
    sb_add("}}");
}

static void
test_drains_32_ok(void)
{
    build_drains(ZKE_DRAINS_MAX);
    check_sb(dec_config, "config", 0, NULL);
    CU_ASSERT_EQUAL(g_config.ndrains, ZKE_DRAINS_MAX);
    CU_ASSERT_STRING_EQUAL(g_config.drains[31].id, "n31");
    CU_ASSERT_EQUAL(g_config.drains[31].until_ms, 32);
}

static void
test_drains_33(void)
{
    build_drains(ZKE_DRAINS_MAX + 1);
    check_sb(dec_config, "config", ZKELECT_ETOOBIG, "drains");
}

static void
test_options_33(void)
{
    int i;

    sb_reset();
    sb_add("{'v':1,'options':{");
    for (i = 0; i <= ZKE_OPTIONS_MAX; i++)
        sb_addf("%s'k%d':'v'", i ? "," : "", i);
    sb_add("}}");
    check_sb(dec_config, "config", ZKELECT_ETOOBIG, "options");
}

static void
test_history_65(void)
{
    int i;

    sb_reset();
    sb_add("{'v':1,'entries':[");
    for (i = 0; i <= ZKE_HISTORY_MAX; i++)
        sb_addf("%s" HE("%d", "'n1'", ""), i ? "," : "", i + 1);
    sb_add("]}");
    check_sb(dec_history, "history", ZKELECT_ETOOBIG, "entries");
}

/* Every single-byte truncation of a valid payload fails, none crashes. */
static void
test_every_prefix_fails(void)
{
    static const char full[] = ELE("7", "'n2'", ",'excluded_note':'\\u00e9'");
    int n = load(full, sizeof(full) - 1), i, rc;

    for (i = 0; i < n; i++) {
        rc = zke_elected_decode(work, i, &g_elected, errbuf, sizeof(errbuf));
        CU_ASSERT(rc == ZKELECT_ESYNTAX);
    }
    CU_ASSERT_EQUAL(zke_elected_decode(work, n, &g_elected, NULL, 0), 0);
}

/* A successor record with n entries, slots 0..n-1 (n <= ZKE_LEADERS_MAX + 1). */
static void
build_successors(int n)
{
    int i;

    sb_reset();
    sb_add("{'v':1," SUC_TOP ",'slots':[");
    for (i = 0; i < n; i++)
        sb_addf("%s{'slot':%d,'leader':'l%d','leader_znode':'z%d',"
            "'successor':'s%d','successor_znode':'y%d'}", i ? "," : "",
            i < ZKE_LEADERS_MAX ? i : 0, i, i, i, i);
    sb_add("]}");
}

static void
test_successor_16_ok(void)
{
    build_successors(ZKE_LEADERS_MAX);
    check_sb(dec_successor, "successor", 0, NULL);
    CU_ASSERT_EQUAL(g_successor.nslots, ZKE_LEADERS_MAX);
    CU_ASSERT_STRING_EQUAL(g_successor.slots[15].successor, "s15");
}

/* Too many entries is ETOOBIG before any entry is read (even a repeated slot). */
static void
test_successor_17(void)
{
    build_successors(ZKE_LEADERS_MAX + 1);
    check_sb(dec_successor, "successor", ZKELECT_ETOOBIG, "slots");
}

/* Size first: a successor record padded past ZKE_PAYLOAD_MAX. */
static void
test_successor_too_big(void)
{
    build_successors(2);
    CU_ASSERT_FATAL(ZKE_PAYLOAD_MAX + 1 < sizeof(sb.buf));
    memset(sb.buf + sb.len, ' ', ZKE_PAYLOAD_MAX - sb.len);
    sb.len = ZKE_PAYLOAD_MAX;
    sb.buf[sb.len] = '\0';
    check_sb(dec_successor, "successor", 0, NULL);
    sb.buf[sb.len++] = ' ';
    sb.buf[sb.len] = '\0';
    check_sb(dec_successor, "successor", ZKELECT_ETOOBIG, NULL);
}

static CU_TestInfo generated_tests[] = {
    { "payload_max_ok", test_payload_max_ok },
    { "payload_too_big", test_payload_too_big },
    { "payload_too_big_first", test_payload_too_big_first },
    { "nesting_ok", test_nesting_ok },
    { "nesting_too_deep", test_nesting_too_deep },
    { "tags_many", test_tags_many },
    { "exclusions_64_ok", test_exclusions_64_ok },
    { "exclusions_65", test_exclusions_65 },
    { "sites_32_ok", test_sites_32_ok },
    { "sites_33", test_sites_33 },
    { "options_33", test_options_33 },
    { "drains_32_ok", test_drains_32_ok },
    { "drains_33", test_drains_33 },
    { "history_65", test_history_65 },
    { "every_prefix_fails", test_every_prefix_fails },
    { "successor_16_ok", test_successor_16_ok },
    { "successor_17", test_successor_17 },
    { "successor_too_big", test_successor_too_big },
    CU_TEST_INFO_NULL
};

/* ------------------------------------------------------------------------ */
/* Suite "encode"                                                           */
/* ------------------------------------------------------------------------ */

static void
fill_member(struct zke_member *m)
{
    memset(m, 0, sizeof(*m));
    strcpy(m->id, "node-1.a_B");
    strcpy(m->site, "dc1");
    m->priority = ZKE_PRIORITY_MIN;
    strcpy(m->host, "host \"one\" \\ caf\xC3\xA9");
    m->pid = (int64_t)ZKE_EPOCH_MAX;
    strcpy(m->version, "0.1.0");
    strcpy(m->tags[0], "db");
    strcpy(m->tags[1], "Primary-capable");
    m->ntags = 2;
    m->eligible = true;
    m->healthy = false;
    strcpy(m->guid, HEX32);
    m->max_leaders = ZKE_LEADERS_MAX;
}

static void
fill_elected(struct zke_elected *e)
{
    memset(e, 0, sizeof(*e));
    e->epoch = ZKE_EPOCH_MAX;
    strcpy(e->leader, "n2");
    strcpy(e->leader_site, "dr");
    strcpy(e->previous, "n1");
    strcpy(e->elector, "n3");
    strcpy(e->policy, "site");
    strcpy(e->reason, "n1 stalled in PROGRESS; \"watchdog\" fired");
    e->at_ms = 1700000000123LL;
    e->switchover_id = 3;
    strcpy(e->excluded[0].id, "n1");
    strcpy(e->excluded[0].reason, "watchdog");
    e->excluded[0].remaining_ms = ZKE_REMAINING_MAX;
    strcpy(e->excluded[1].id, "n4");
    strcpy(e->excluded[1].reason, "takeover-failed");
    e->excluded[1].remaining_ms = 0;
    e->nexcluded = 2;
    strcpy(e->hold.kind, "failback");
    strcpy(e->hold.node, "n1");
    e->hold.until_ms = 1795662000000LL;
}

static void
fill_leader(struct zke_leader *l)
{
    memset(l, 0, sizeof(*l));
    strcpy(l->id, "n1");
    l->status = ZKELECT_STATUS_READY;
    l->epoch = 7;
    l->since_ms = 1700000000000LL;
}

static void
fill_config(struct zke_config *c)
{
    memset(c, 0, sizeof(*c));
    strcpy(c->policy, "site");
    strcpy(c->sites[0].site, "dc1");
    c->sites[0].priority = ZKE_PRIORITY_MAX;
    strcpy(c->sites[1].site, "dr");
    c->sites[1].priority = -1;
    c->nsites = 2;
    c->watchdog_ms = ZKE_WATCHDOG_MAX;
    c->exclude_ms = ZKE_EXCLUDE_MAX;
    strcpy(c->options[0].key, "sticky");
    strcpy(c->options[0].value, "yes");
    strcpy(c->options[1].key, "note");
    strcpy(c->options[1].value, "");
    c->noptions = 2;
    c->paused = true;
    c->settle_set = true;
    c->settle_ms = ZKE_SETTLE_MAX;
    c->expect = ZKE_EXPECT_MAX;
    c->failback_set = true;
    c->failback_delay_ms = 6000;
    c->min_move_set = true;
    c->min_move_interval_ms = 0;
    strcpy(c->drains[0].id, "n1");
    c->drains[0].until_ms = 1795662000000LL;
    strcpy(c->drains[0].reason, "kernel \"upgrade\" caf\xC3\xA9");
    strcpy(c->drains[0].by, "root@admin1");
    strcpy(c->drains[1].id, "n2");
    c->drains[1].until_ms = (int64_t)ZKE_EPOCH_MAX;
    c->ndrains = 2;
}

static void
fill_switchover(struct zke_switchover *s)
{
    memset(s, 0, sizeof(*s));
    s->id = 11;
    strcpy(s->to, "n5");
    s->at_ms = 5;
    strcpy(s->by, "alice@admin1");
}

static void
fill_history(struct zke_history *h)
{
    int i;

    memset(h, 0, sizeof(*h));
    for (i = 0; i < 3; i++) {
        h->entries[i].epoch = (uint64_t)i + 1;
        snprintf(h->entries[i].leader, sizeof(h->entries[i].leader), "n%d", i);
        strcpy(h->entries[i].elector, "n0");
        strcpy(h->entries[i].policy, "nodeid");
        snprintf(h->entries[i].reason, sizeof(h->entries[i].reason),
            "decision %d", i);
        h->entries[i].at_ms = 1000 * i;
    }
    memset(h->entries[1].leader, 0, sizeof(h->entries[1].leader)); /* no leader */
    h->n = 3;
}

/* A compact payload: no whitespace outside strings. */
static int
compact(const char *s)
{
    int in = 0;

    for (; *s != '\0'; s++) {
        if (*s == '\\' && in) {
            s++;
            continue;
        }
        if (*s == '"')
            in = !in;
        else if (!in && (*s == ' ' || *s == '\n' || *s == '\t'))
            return 0;
    }
    return 1;
}

/*
 * What decoding gives back for a struct: config.leaders and member.max_leaders
 * decode as 1 when the payload has no key, and 0 writes no key (codec.h).
 */
static void norm_member(struct zke_member *m) { if (m->max_leaders == 0) m->max_leaders = 1; }
static void norm_config(struct zke_config *c) { if (c->leaders == 0) c->leaders = 1; }
static void norm_elected(struct zke_elected *e) { (void)e; }
static void norm_leader(struct zke_leader *l) { (void)l; }
static void norm_switchover(struct zke_switchover *s) { (void)s; }
static void norm_history(struct zke_history *h) { (void)h; }
static void norm_successor(struct zke_successor *s) { (void)s; }

/*
 * Round trip of one kind: encode, decode into a zeroed struct, memcmp with
 * the original (as norm_<kind> says it comes back); encode the copy again
 * and compare the bytes.
 */
#define ROUND_TRIP(kind, orig, copy)                                         \
    do {                                                                     \
        char *out = NULL, *out2 = NULL;                                      \
        size_t outlen = 99, outlen2 = 0;                                     \
        int rc_;                                                             \
        rc_ = zke_##kind##_encode(orig, &out, &outlen);                      \
        norm_##kind(orig);                                                   \
        CU_ASSERT_EQUAL_FATAL(rc_, 0);                                       \
        CU_ASSERT_FATAL(out != NULL);                                        \
        CU_ASSERT_EQUAL(outlen, strlen(out));                                \
        CU_ASSERT(strncmp(out, "{\"v\":1,", 7) == 0);                        \
        CU_ASSERT(compact(out));                                             \
        memset(copy, 0x5a, sizeof(*(copy)));                                 \
        rc_ = zke_##kind##_decode(out, (int)outlen, copy, errbuf,            \
            sizeof(errbuf));                                                 \
        if (rc_ != 0)                                                        \
            fprintf(stderr, "\n    %s\n    %s\n", out, errbuf);              \
        CU_ASSERT_EQUAL(rc_, 0);                                             \
        CU_ASSERT(memcmp(orig, copy, sizeof(*(copy))) == 0);                 \
        CU_ASSERT_EQUAL(zke_##kind##_encode(copy, &out2, &outlen2), 0);      \
        CU_ASSERT(out2 != NULL && strcmp(out, out2) == 0);                   \
        free(out);                                                           \
        free(out2);                                                          \
    } while (0)

static struct zke_member m1, m2;
static struct zke_elected e1, e2;
static struct zke_leader l1, l2;
static struct zke_config c1, c2;
static struct zke_switchover s1, s2;
static struct zke_history h1, h2;
static struct zke_successor su1, su2;
static void fill_successor(struct zke_successor *s);

static void
test_rt_member(void)
{
    fill_member(&m1);
    ROUND_TRIP(member, &m1, &m2);
}

static void
test_rt_member_minimal(void)
{
    memset(&m1, 0, sizeof(m1));
    strcpy(m1.id, "n");
    m1.priority = ZKE_PRIORITY_MAX;
    m1.max_leaders = 1;     /* 0 writes no key, which reads back as 1 */
    ROUND_TRIP(member, &m1, &m2);
}

static void
test_rt_member_full_tags(void)
{
    int i;

    fill_member(&m1);
    for (i = 0; i < ZKE_TAGS_MAX; i++) {
        memset(m1.tags[i], 'a' + i, ZKE_NAME_MAX);
        m1.tags[i][ZKE_NAME_MAX] = '\0';
    }
    m1.ntags = ZKE_TAGS_MAX;
    memset(m1.id, 'z', ZKE_ID_MAX);
    memset(m1.host, 'h', ZKE_HOST_MAX);
    ROUND_TRIP(member, &m1, &m2);
}

static void
test_rt_elected(void)
{
    fill_elected(&e1);
    ROUND_TRIP(elected, &e1, &e2);
}

/* The hosts go through a round trip; each is omitted from the JSON when
   empty (a decision written by an older elector has neither). */
static void
test_rt_elected_hosts(void)
{
    char *js = NULL;
    size_t n = 0;

    fill_elected(&e1);
    strcpy(e1.leader_host, "h2.example");
    strcpy(e1.previous_host, "h1 \"old\" \xc3\xa9");
    ROUND_TRIP(elected, &e1, &e2);
    CU_ASSERT_STRING_EQUAL(e2.leader_host, "h2.example");
    CU_ASSERT_STRING_EQUAL(e2.previous_host, "h1 \"old\" \xc3\xa9");
    memset(e1.leader_host, 'h', ZKE_HOST_MAX);    /* the longest */
    e1.leader_host[ZKE_HOST_MAX] = '\0';
    ROUND_TRIP(elected, &e1, &e2);
    fill_elected(&e1);
    strcpy(e1.previous_host, "h1");
    CU_ASSERT_EQUAL_FATAL(zke_elected_encode(&e1, &js, &n), 0);
    CU_ASSERT(strstr(js, "\"leader_host\"") == NULL);
    CU_ASSERT(strstr(js, "\"previous_host\":\"h1\"") != NULL);
    free(js);
    js = NULL;
    e1.previous_host[0] = '\0';
    strcpy(e1.leader_host, "h2");
    CU_ASSERT_EQUAL_FATAL(zke_elected_encode(&e1, &js, &n), 0);
    CU_ASSERT(strstr(js, "\"previous_host\"") == NULL);
    CU_ASSERT(strstr(js, "\"leader_host\":\"h2\"") != NULL);
    free(js);
    js = NULL;
    fill_elected(&e1);
    CU_ASSERT_EQUAL_FATAL(zke_elected_encode(&e1, &js, &n), 0);
    CU_ASSERT(strstr(js, "_host") == NULL);
    free(js);
    ROUND_TRIP(elected, &e1, &e2);
}

/* A member's and a decision's boolean flag NAME (M1F/M2F point into m1 and
   m2, E1F/E2F into e1 and e2): it goes through a round trip, is omitted
   when false (a release before it wrote neither), and decodes as false
   when absent. */
static void
rt_flag(const char *name, bool *m1f, const bool *m2f, bool *e1f, const bool *e2f)
{
    char *js = NULL, err[256], key[64], on[80];
    size_t n = 0;

    snprintf(key, sizeof(key), "\"%s\"", name);
    snprintf(on, sizeof(on), "\"%s\":true", name);
    fill_member(&m1);
    *m1f = true;
    ROUND_TRIP(member, &m1, &m2);
    CU_ASSERT(*m2f);
    CU_ASSERT_EQUAL_FATAL(zke_member_encode(&m1, &js, &n), 0);
    CU_ASSERT(strstr(js, on) != NULL);
    free(js);
    js = NULL;
    *m1f = false;
    CU_ASSERT_EQUAL_FATAL(zke_member_encode(&m1, &js, &n), 0);
    CU_ASSERT(strstr(js, key) == NULL);
    CU_ASSERT_EQUAL(zke_member_decode(js, (int)n, &m2, err, sizeof(err)), 0);
    CU_ASSERT(!*m2f);
    free(js);
    js = NULL;
    fill_elected(&e1);
    *e1f = true;
    ROUND_TRIP(elected, &e1, &e2);
    CU_ASSERT(*e2f);
    CU_ASSERT_EQUAL_FATAL(zke_elected_encode(&e1, &js, &n), 0);
    CU_ASSERT(strstr(js, on) != NULL);
    free(js);
    js = NULL;
    *e1f = false;
    CU_ASSERT_EQUAL_FATAL(zke_elected_encode(&e1, &js, &n), 0);
    CU_ASSERT(strstr(js, key) == NULL);
    CU_ASSERT_EQUAL(zke_elected_decode(js, (int)n, &e2, err, sizeof(err)), 0);
    CU_ASSERT(!*e2f);
    free(js);
}

/* "wake" (the release that wakes; PROTOCOL §2). A value that is not a
   boolean is refused by name (the decode table). */
static void
test_rt_wake(void)
{
    rt_flag("wake", &m1.wake, &m2.wake, &e1.wake, &e2.wake);
}

/* "fast_handover" (PROTOCOL §4, "The fast handover"), the same way. */
static void
test_rt_fast_handover(void)
{
    rt_flag("fast_handover", &m1.fast_handover, &m2.fast_handover, &e1.fast_handover,
            &e2.fast_handover);
}

static void
test_rt_elected_no_leader(void)
{
    fill_elected(&e1);
    /* Whole arrays cleared: memcmp also compares the bytes after the NUL. */
    memset(e1.leader, 0, sizeof(e1.leader));
    memset(e1.previous, 0, sizeof(e1.previous));
    memset(e1.leader_site, 0, sizeof(e1.leader_site));
    e1.nexcluded = 0;
    e1.at_ms = 0;
    memset(e1.excluded, 0, sizeof(e1.excluded));
    ROUND_TRIP(elected, &e1, &e2);
}

static void
test_rt_leader(void)
{
    fill_leader(&l1);
    ROUND_TRIP(leader, &l1, &l2);
    l1.status = ZKELECT_STATUS_PROGRESS;
    l1.epoch = 1;
    ROUND_TRIP(leader, &l1, &l2);
}

static void
test_rt_config(void)
{
    fill_config(&c1);
    ROUND_TRIP(config, &c1, &c2);
}

static void
test_rt_config_defaults(void)
{
    memset(&c1, 0, sizeof(c1));
    ROUND_TRIP(config, &c1, &c2);
}

static void
test_rt_switchover(void)
{
    fill_switchover(&s1);
    ROUND_TRIP(switchover, &s1, &s2);
    memset(s1.to, 0, sizeof(s1.to));
    ROUND_TRIP(switchover, &s1, &s2);
}

/* Issue 16's fields: each alone and together, and their absence. */
static void
test_rt_switchover_dr(void)
{
    fill_switchover(&s1);
    s1.due_ms = 1795662000000LL;                /* --to NODE --at TIME */
    ROUND_TRIP(switchover, &s1, &s2);
    memset(s1.to, 0, sizeof(s1.to));
    strcpy(s1.site, "dc2");                     /* --site SITE --at TIME */
    ROUND_TRIP(switchover, &s1, &s2);
    s1.due_ms = (int64_t)ZKE_EPOCH_MAX;
    ROUND_TRIP(switchover, &s1, &s2);
    memset(s1.site, 0, sizeof(s1.site));        /* --cancel */
    s1.due_ms = 0;
    s1.cancel = true;
    ROUND_TRIP(switchover, &s1, &s2);
}

static void
test_rt_config_dr(void)
{
    /* an explicit 0 is kept apart from "absent" (the node default) */
    memset(&c1, 0, sizeof(c1));
    c1.settle_set = true;
    c1.failback_set = true;
    c1.min_move_set = true;
    ROUND_TRIP(config, &c1, &c2);
    CU_ASSERT(c2.settle_set && c2.failback_set && c2.min_move_set);
    memset(&c1, 0, sizeof(c1));
    c1.expect = 1;
    c1.failback_delay_ms = 5;   /* not set: not written, decoded as 0 */
    c1.failback_set = false;
    {
        char *out = NULL;
        size_t n = 0;
        CU_ASSERT_EQUAL_FATAL(zke_config_encode(&c1, &out, &n), 0);
        CU_ASSERT(strstr(out, "failback") == NULL);
        CU_ASSERT(strstr(out, "settle_ms") == NULL);
        CU_ASSERT(strstr(out, "drains") == NULL);
        CU_ASSERT(strstr(out, "\"expect\":1") != NULL);
        free(out);
    }
}

static void
test_rt_elected_hold(void)
{
    fill_elected(&e1);
    memset(&e1.hold, 0, sizeof(e1.hold));       /* no hold: no field */
    ROUND_TRIP(elected, &e1, &e2);
    strcpy(e1.hold.kind, "settle");             /* node "" and no time */
    ROUND_TRIP(elected, &e1, &e2);
    strcpy(e1.hold.kind, "anti-flap");
    strcpy(e1.hold.node, "n4");
    e1.hold.until_ms = (int64_t)ZKE_EPOCH_MAX;
    ROUND_TRIP(elected, &e1, &e2);
}

static void
test_golden_dr(void)
{
    char *out = NULL;
    size_t n = 0;

    memset(&s1, 0, sizeof(s1));
    s1.id = 12;
    strcpy(s1.site, "dc2");
    s1.due_ms = 1795662000000LL;
    CU_ASSERT_EQUAL_FATAL(zke_switchover_encode(&s1, &out, &n), 0);
    CU_ASSERT_STRING_EQUAL(out, "{\"v\":1,\"id\":12,\"to\":null,\"at_ms\":0,"
        "\"by\":\"\",\"site\":\"dc2\",\"due_ms\":1795662000000}");
    free(out);
    memset(&c1, 0, sizeof(c1));
    c1.settle_set = true;
    c1.settle_ms = 2000;
    strcpy(c1.drains[0].id, "n1");
    c1.drains[0].until_ms = 5;
    c1.ndrains = 1;
    CU_ASSERT_EQUAL_FATAL(zke_config_encode(&c1, &out, &n), 0);
    CU_ASSERT(strstr(out, ",\"settle_ms\":2000,\"drains\":{\"n1\":{\"until_ms\":5,"
        "\"reason\":\"\",\"by\":\"\"}}}") != NULL);
    free(out);
}

static void
test_rt_history(void)
{
    fill_history(&h1);
    ROUND_TRIP(history, &h1, &h2);
}

/* The largest structs, with text that doubles when escaped, still fit. */
static void
test_rt_largest(void)
{
    int i;

    memset(&h1, 0, sizeof(h1));
    for (i = 0; i < ZKE_HISTORY_MAX; i++) {
        h1.entries[i].epoch = ZKE_EPOCH_MAX - (uint64_t)i;
        memset(h1.entries[i].leader, 'l', ZKE_ID_MAX);
        memset(h1.entries[i].elector, 'e', ZKE_ID_MAX);
        memset(h1.entries[i].policy, 'p', ZKE_NAME_MAX);
        memset(h1.entries[i].reason, '"', ZKE_REASON_MAX);
        h1.entries[i].at_ms = (int64_t)ZKE_EPOCH_MAX;
    }
    h1.n = ZKE_HISTORY_MAX;
    ROUND_TRIP(history, &h1, &h2);

    memset(&c1, 0, sizeof(c1));
    for (i = 0; i < ZKE_SITES_MAX; i++) {
        memset(c1.sites[i].site, 's', ZKE_SITE_MAX);
        c1.sites[i].site[0] = LETTERS[i];
        c1.sites[i].priority = ZKE_PRIORITY_MIN;
    }
    c1.nsites = ZKE_SITES_MAX;
    for (i = 0; i < ZKE_OPTIONS_MAX; i++) {
        memset(c1.options[i].key, 'k', ZKE_NAME_MAX);
        c1.options[i].key[0] = LETTERS[i];
        memset(c1.options[i].value, '\\', ZKE_VALUE_MAX);
    }
    c1.noptions = ZKE_OPTIONS_MAX;
    for (i = 0; i < ZKE_DRAINS_MAX; i++) {
        memset(c1.drains[i].id, 'd', ZKE_ID_MAX);
        c1.drains[i].id[0] = LETTERS[i];
        c1.drains[i].until_ms = (int64_t)ZKE_EPOCH_MAX;
        memset(c1.drains[i].reason, '"', ZKE_REASON_MAX);
        memset(c1.drains[i].by, '\\', ZKE_NAME_MAX);
    }
    c1.ndrains = ZKE_DRAINS_MAX;
    ROUND_TRIP(config, &c1, &c2);
}

static void
test_golden_leader(void)
{
    char *out = NULL;
    size_t n = 0;

    fill_leader(&l1);
    CU_ASSERT_EQUAL_FATAL(zke_leader_encode(&l1, &out, &n), 0);
    CU_ASSERT_STRING_EQUAL(out, "{\"v\":1,\"id\":\"n1\",\"status\":\"READY\","
        "\"epoch\":7,\"since_ms\":1700000000000}");
    free(out);
}

static void
test_golden_member(void)
{
    char *out = NULL;
    size_t n = 0;

    memset(&m1, 0, sizeof(m1));
    strcpy(m1.id, "n1");
    m1.priority = -3;
    m1.eligible = true;
    CU_ASSERT_EQUAL_FATAL(zke_member_encode(&m1, &out, &n), 0);
    CU_ASSERT_STRING_EQUAL(out, "{\"v\":1,\"id\":\"n1\",\"site\":\"\","
        "\"priority\":-3,\"host\":\"\",\"pid\":0,\"version\":\"\",\"tags\":[],"
        "\"eligible\":true,\"healthy\":false,\"guid\":\"\"}");
    free(out);
}

static void
test_golden_nulls(void)
{
    char *out = NULL;
    size_t n = 0;

    fill_switchover(&s1);
    s1.to[0] = '\0';
    s1.by[0] = '\0';
    CU_ASSERT_EQUAL_FATAL(zke_switchover_encode(&s1, &out, &n), 0);
    CU_ASSERT_STRING_EQUAL(out, "{\"v\":1,\"id\":11,\"to\":null,\"at_ms\":5,"
        "\"by\":\"\"}");
    free(out);
    fill_elected(&e1);
    e1.leader[0] = '\0';
    e1.previous[0] = '\0';
    CU_ASSERT_EQUAL_FATAL(zke_elected_encode(&e1, &out, &n), 0);
    CU_ASSERT(strstr(out, "\"leader\":null,") != NULL);
    CU_ASSERT(strstr(out, "\"previous\":null,") != NULL);
    CU_ASSERT(strstr(out, "\"epoch\":9007199254740991,") != NULL);
    free(out);
}

/* Encode a struct that must be refused; *out must stay NULL. */
#define REFUSE(kind, ptr)                                                    \
    do {                                                                     \
        char *out_ = (char *)"untouched";                                    \
        size_t n_ = 7;                                                       \
        CU_ASSERT_EQUAL(zke_##kind##_encode(ptr, &out_, &n_), ZKELECT_EINVAL); \
        CU_ASSERT_PTR_NULL(out_);                                            \
        CU_ASSERT_EQUAL(n_, 0);                                              \
    } while (0)

static void
test_refuse_member(void)
{
    fill_member(&m1); m1.id[0] = '\0';               REFUSE(member, &m1);
    fill_member(&m1); strcpy(m1.id, ".x");           REFUSE(member, &m1);
    fill_member(&m1); strcpy(m1.id, "a b");          REFUSE(member, &m1);
    fill_member(&m1); memset(m1.id, 'a', sizeof(m1.id)); REFUSE(member, &m1);
    fill_member(&m1); strcpy(m1.site, "-dc");        REFUSE(member, &m1);
    fill_member(&m1); m1.priority = ZKE_PRIORITY_MAX + 1; REFUSE(member, &m1);
    fill_member(&m1); m1.priority = ZKE_PRIORITY_MIN - 1; REFUSE(member, &m1);
    fill_member(&m1); m1.pid = -1;                   REFUSE(member, &m1);
    fill_member(&m1); m1.pid = (int64_t)ZKE_EPOCH_MAX + 1; REFUSE(member, &m1);
    fill_member(&m1); strcpy(m1.host, "a\nb");       REFUSE(member, &m1);
    fill_member(&m1); strcpy(m1.host, "\xC0\xAF");   REFUSE(member, &m1);
    fill_member(&m1); strcpy(m1.version, "\xED\xA0\x80"); REFUSE(member, &m1);
    fill_member(&m1); m1.ntags = -1;                 REFUSE(member, &m1);
    fill_member(&m1); m1.ntags = ZKE_TAGS_MAX + 1;   REFUSE(member, &m1);
    fill_member(&m1); strcpy(m1.tags[1], "db");      REFUSE(member, &m1);
    fill_member(&m1); strcpy(m1.tags[1], "a:b");     REFUSE(member, &m1);
    fill_member(&m1); strcpy(m1.guid, "0123456789ABCDEF0123456789abcdef");
    REFUSE(member, &m1);
    fill_member(&m1); strcpy(m1.guid, "abc");        REFUSE(member, &m1);
}

static void
test_refuse_elected(void)
{
    fill_elected(&e1); e1.epoch = 0;                 REFUSE(elected, &e1);
    fill_elected(&e1); e1.epoch = ZKE_EPOCH_MAX + 1; REFUSE(elected, &e1);
    fill_elected(&e1); e1.epoch = UINT64_MAX;        REFUSE(elected, &e1);
    fill_elected(&e1); strcpy(e1.leader, "a/b");     REFUSE(elected, &e1);
    fill_elected(&e1); strcpy(e1.previous, "-p");    REFUSE(elected, &e1);
    fill_elected(&e1); e1.elector[0] = '\0';         REFUSE(elected, &e1);
    fill_elected(&e1); e1.policy[0] = '\0';          REFUSE(elected, &e1);
    fill_elected(&e1); strcpy(e1.reason, "two\nlines"); REFUSE(elected, &e1);
    fill_elected(&e1); e1.at_ms = -1;                REFUSE(elected, &e1);
    fill_elected(&e1); e1.switchover_id = ZKE_EPOCH_MAX + 1; REFUSE(elected, &e1);
    fill_elected(&e1); e1.nexcluded = ZKE_EXCLUDED_MAX + 1; REFUSE(elected, &e1);
    fill_elected(&e1); e1.nexcluded = -1;            REFUSE(elected, &e1);
    fill_elected(&e1); strcpy(e1.excluded[1].id, "n1"); REFUSE(elected, &e1);
    fill_elected(&e1); e1.excluded[0].reason[0] = '\0'; REFUSE(elected, &e1);
    fill_elected(&e1); e1.excluded[0].remaining_ms = ZKE_REMAINING_MAX + 1;
    REFUSE(elected, &e1);
    fill_elected(&e1); strcpy(e1.hold.kind, "anti flap"); REFUSE(elected, &e1);
    fill_elected(&e1); strcpy(e1.hold.node, "n/1");  REFUSE(elected, &e1);
    fill_elected(&e1); e1.hold.until_ms = -1;        REFUSE(elected, &e1);
}

static void
test_refuse_leader(void)
{
    fill_leader(&l1); l1.status = (enum zkelect_status)0; REFUSE(leader, &l1);
    fill_leader(&l1); l1.status = (enum zkelect_status)3; REFUSE(leader, &l1);
    fill_leader(&l1); l1.epoch = 0;                  REFUSE(leader, &l1);
    fill_leader(&l1); l1.id[0] = '\0';               REFUSE(leader, &l1);
    fill_leader(&l1); l1.since_ms = -2;              REFUSE(leader, &l1);
}

static void
test_refuse_config(void)
{
    fill_config(&c1); strcpy(c1.policy, "a b");      REFUSE(config, &c1);
    fill_config(&c1); c1.watchdog_ms = 99;           REFUSE(config, &c1);
    fill_config(&c1); c1.watchdog_ms = ZKE_WATCHDOG_MAX + 1; REFUSE(config, &c1);
    fill_config(&c1); c1.exclude_ms = ZKE_EXCLUDE_MAX + 1; REFUSE(config, &c1);
    fill_config(&c1); c1.sites[1].site[0] = '\0';    REFUSE(config, &c1);
    fill_config(&c1); strcpy(c1.sites[1].site, "dc1"); REFUSE(config, &c1);
    fill_config(&c1); c1.sites[0].priority = ZKE_PRIORITY_MAX + 1;
    REFUSE(config, &c1);
    fill_config(&c1); c1.nsites = ZKE_SITES_MAX + 1; REFUSE(config, &c1);
    fill_config(&c1); c1.noptions = -1;              REFUSE(config, &c1);
    fill_config(&c1); strcpy(c1.options[1].key, "sticky"); REFUSE(config, &c1);
    fill_config(&c1); strcpy(c1.options[1].key, "a=b"); REFUSE(config, &c1);
    fill_config(&c1); strcpy(c1.options[1].value, "tab\there"); REFUSE(config, &c1);
    fill_config(&c1); c1.settle_ms = ZKE_SETTLE_MAX + 1; REFUSE(config, &c1);
    fill_config(&c1); c1.expect = ZKE_EXPECT_MAX + 1; REFUSE(config, &c1);
    fill_config(&c1); c1.failback_delay_ms = ZKE_DELAY_MAX + 1; REFUSE(config, &c1);
    fill_config(&c1); c1.min_move_interval_ms = ZKE_DELAY_MAX + 1; REFUSE(config, &c1);
    fill_config(&c1); c1.ndrains = ZKE_DRAINS_MAX + 1; REFUSE(config, &c1);
    fill_config(&c1); c1.ndrains = -1;               REFUSE(config, &c1);
    fill_config(&c1); c1.drains[1].id[0] = '\0';    REFUSE(config, &c1);
    fill_config(&c1); strcpy(c1.drains[1].id, "n 2"); REFUSE(config, &c1);
    fill_config(&c1); strcpy(c1.drains[1].id, "n1"); REFUSE(config, &c1);
    fill_config(&c1); c1.drains[0].until_ms = 0;     REFUSE(config, &c1);
    fill_config(&c1); c1.drains[0].until_ms = -1;    REFUSE(config, &c1);
    fill_config(&c1); c1.drains[0].until_ms = (int64_t)ZKE_EPOCH_MAX + 1; REFUSE(config, &c1);
    fill_config(&c1); strcpy(c1.drains[0].reason, "a\nb"); REFUSE(config, &c1);
    fill_config(&c1); memset(c1.drains[0].by, 'b', sizeof(c1.drains[0].by)); REFUSE(config, &c1);
}

static void
test_refuse_switchover_history(void)
{
    fill_switchover(&s1); s1.id = ZKE_EPOCH_MAX + 1; REFUSE(switchover, &s1);
    fill_switchover(&s1); strcpy(s1.to, "a b");      REFUSE(switchover, &s1);
    fill_switchover(&s1); memset(s1.by, 'b', sizeof(s1.by)); REFUSE(switchover, &s1);
    fill_switchover(&s1); strcpy(s1.site, "dc2");    REFUSE(switchover, &s1); /* and to */
    fill_switchover(&s1); s1.to[0] = '\0'; strcpy(s1.site, "d c"); REFUSE(switchover, &s1);
    fill_switchover(&s1); s1.due_ms = -1;            REFUSE(switchover, &s1);
    fill_switchover(&s1); s1.due_ms = (int64_t)ZKE_EPOCH_MAX + 1; REFUSE(switchover, &s1);
    fill_history(&h1); h1.n = ZKE_HISTORY_MAX + 1;   REFUSE(history, &h1);
    fill_history(&h1); h1.n = -1;                    REFUSE(history, &h1);
    fill_history(&h1); h1.entries[2].epoch = 0;      REFUSE(history, &h1);
    fill_history(&h1); h1.entries[0].elector[0] = '\0'; REFUSE(history, &h1);
    fill_history(&h1); strcpy(h1.entries[0].policy, "-x"); REFUSE(history, &h1);
}

/*
 * A count beyond its array is refused before any entry is read: the structs
 * are on the heap so that ASan would see a read past the end.
 */
static void
test_refuse_counts(void)
{
    struct zke_member *m = malloc(sizeof(*m));
    struct zke_elected *e = malloc(sizeof(*e));
    struct zke_config *c = malloc(sizeof(*c));
    struct zke_history *h = malloc(sizeof(*h));

    CU_ASSERT_FATAL(m != NULL && e != NULL && c != NULL && h != NULL);
    fill_member(m); m->ntags = ZKE_TAGS_MAX + 2;     REFUSE(member, m);
    fill_elected(e); e->nexcluded = ZKE_EXCLUDED_MAX + 1; REFUSE(elected, e);
    fill_config(c); c->noptions = ZKE_OPTIONS_MAX + 1; REFUSE(config, c);
    fill_history(h); h->n = ZKE_HISTORY_MAX + 1;     REFUSE(history, h);
    free(m);
    free(e);
    free(c);
    free(h);
}

static void
test_encode_bad_arguments(void)
{
    char *out = NULL;
    size_t n = 0;

    fill_member(&m1);
    CU_ASSERT_EQUAL(zke_member_encode(NULL, &out, &n), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_member_encode(&m1, NULL, &n), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_member_encode(&m1, &out, NULL), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_elected_encode(NULL, &out, &n), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_leader_encode(NULL, &out, &n), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_config_encode(NULL, &out, &n), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_switchover_encode(NULL, &out, &n), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_history_encode(NULL, &out, &n), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_successor_encode(NULL, &out, &n), ZKELECT_EINVAL);
    fill_successor(&su1);
    CU_ASSERT_EQUAL(zke_successor_encode(&su1, NULL, &n), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_successor_encode(&su1, &out, NULL), ZKELECT_EINVAL);
    CU_ASSERT_PTR_NULL(out);
}


/* ------------------------------------------------------------------------ */
/* Issue 17: slots                                                          */
/* ------------------------------------------------------------------------ */

/*
 * The structs a release before slots filled in, with what its encoder wrote
 * (captured from the codec of commit 9bbd26b). A group with one leader must
 * keep writing exactly these bytes.
 */
static const char golden_n1_member[] =
    "{\"v\":1,\"id\":\"node-1.a_B\",\"site\":\"dc1\",\"priority\":-1000000,"
    "\"host\":\"host \\\"one\\\" \\\\ caf\xC3\xA9\",\"pid\":9007199254740991,"
    "\"version\":\"0.1.0\",\"tags\":[\"db\",\"Primary-capable\"],"
    "\"eligible\":true,\"healthy\":false,"
    "\"guid\":\"0123456789abcdef0123456789abcdef\"}";
static const char golden_n1_elected[] =
    "{\"v\":1,\"epoch\":9007199254740991,\"leader\":\"n2\",\"leader_site\":\"dr\","
    "\"leader_znode\":\"n2_0123456789abcdef0123456789abcdef_0000000007\","
    "\"previous\":\"n1\",\"elector\":\"n3\",\"policy\":\"site\","
    "\"reason\":\"n1 stalled in PROGRESS; \\\"watchdog\\\" fired\","
    "\"at_ms\":1700000000123,\"switchover_id\":3,\"config_version\":4,"
    "\"excluded\":[{\"id\":\"n1\",\"reason\":\"watchdog\",\"remaining_ms\":604800000},"
    "{\"id\":\"n4\",\"reason\":\"takeover-failed\",\"remaining_ms\":0}],"
    "\"hold\":{\"kind\":\"failback\",\"node\":\"n1\",\"until_ms\":1795662000000}}";
static const char golden_n1_leader[] =
    "{\"v\":1,\"id\":\"n1\",\"status\":\"READY\",\"epoch\":7,"
    "\"since_ms\":1700000000000}";
static const char golden_n1_config[] =
    "{\"v\":1,\"policy\":\"site\",\"sites\":{\"dc1\":1000000,\"dr\":-1},"
    "\"watchdog_ms\":3600000,\"exclude_ms\":86400000,"
    "\"options\":{\"sticky\":\"yes\",\"note\":\"\"},\"paused\":true,"
    "\"settle_ms\":3600000,\"expect\":10000,\"failback_delay_ms\":6000,"
    "\"min_move_interval_ms\":0,\"drains\":{\"n1\":{\"until_ms\":1795662000000,"
    "\"reason\":\"kernel \\\"upgrade\\\" caf\xC3\xA9\",\"by\":\"root@admin1\"},"
    "\"n2\":{\"until_ms\":9007199254740991,\"reason\":\"\",\"by\":\"\"}}}";
static const char golden_n1_config_zero[] =
    "{\"v\":1,\"policy\":\"\",\"sites\":{},\"watchdog_ms\":0,\"exclude_ms\":0,"
    "\"options\":{},\"paused\":false}";
static const char golden_n1_switchover[] =
    "{\"v\":1,\"id\":11,\"to\":null,\"at_ms\":5,\"by\":\"alice@admin1\","
    "\"site\":\"dc2\",\"due_ms\":1795662000000,\"cancel\":true}";
static const char golden_n1_history[] =
    "{\"v\":1,\"entries\":[{\"epoch\":1,\"leader\":\"n0\",\"elector\":\"n0\","
    "\"policy\":\"nodeid\",\"reason\":\"decision 0\",\"at_ms\":0},"
    "{\"epoch\":2,\"leader\":null,\"elector\":\"n0\",\"policy\":\"nodeid\","
    "\"reason\":\"decision 1\",\"at_ms\":1000},{\"epoch\":3,\"leader\":\"n2\","
    "\"elector\":\"n0\",\"policy\":\"nodeid\",\"reason\":\"decision 2\","
    "\"at_ms\":2000}]}";

/* Encode with kind and compare with the exact bytes want. */
#define GOLDEN(kind, ptr, want)                                              \
    do {                                                                     \
        char *out_ = NULL;                                                   \
        size_t n_ = 0;                                                       \
        CU_ASSERT_EQUAL_FATAL(zke_##kind##_encode(ptr, &out_, &n_), 0);      \
        if (strcmp(out_, want) != 0)                                         \
            fprintf(stderr, "\n    got  %s\n    want %s\n", out_, want);     \
        CU_ASSERT_STRING_EQUAL(out_, want);                                  \
        CU_ASSERT_EQUAL(n_, sizeof(want) - 1);                               \
        free(out_);                                                          \
    } while (0)

/* N = 1: every payload is byte for byte what a release before slots wrote. */
static void
test_golden_n1(void)
{
    fill_member(&m1);
    m1.max_leaders = 0;                         /* nobody filled it in */
    GOLDEN(member, &m1, golden_n1_member);
    fill_elected(&e1);
    strcpy(e1.leader_znode, "n2_" HEX32 "_0000000007");
    e1.config_version = 4;
    GOLDEN(elected, &e1, golden_n1_elected);
    fill_leader(&l1);
    GOLDEN(leader, &l1, golden_n1_leader);
    fill_config(&c1);
    GOLDEN(config, &c1, golden_n1_config);
    c1.leaders = 1;                             /* one leader: no key either */
    GOLDEN(config, &c1, golden_n1_config);
    memset(&c1, 0, sizeof(c1));
    GOLDEN(config, &c1, golden_n1_config_zero);
    c1.leaders = 1;
    GOLDEN(config, &c1, golden_n1_config_zero);
    fill_switchover(&s1);
    memset(s1.to, 0, sizeof(s1.to));
    strcpy(s1.site, "dc2");
    s1.due_ms = 1795662000000LL;
    s1.cancel = true;
    GOLDEN(switchover, &s1, golden_n1_switchover);
    fill_history(&h1);
    GOLDEN(history, &h1, golden_n1_history);
}

/* Payloads of a release before slots decode to one leader, slot 0. */
static void
test_old_payloads_decode(void)
{
#define DEC_OLD(kind, var, src)                                              \
    CU_ASSERT_EQUAL(zke_##kind##_decode(src, (int)sizeof(src) - 1, &var,     \
        errbuf, sizeof(errbuf)), 0)
    DEC_OLD(member, m2, golden_n1_member);
    CU_ASSERT_EQUAL(m2.max_leaders, 1);
    DEC_OLD(elected, e2, golden_n1_elected);
    CU_ASSERT_EQUAL(e2.nslots, 0);
    CU_ASSERT_STRING_EQUAL(e2.leader, "n2");
    DEC_OLD(leader, l2, golden_n1_leader);
    CU_ASSERT_EQUAL(l2.slot, 0);
    DEC_OLD(config, c2, golden_n1_config);
    CU_ASSERT_EQUAL(c2.leaders, 1);
    DEC_OLD(config, c2, golden_n1_config_zero);
    CU_ASSERT_EQUAL(c2.leaders, 1);
    DEC_OLD(switchover, s2, golden_n1_switchover);
    CU_ASSERT_STRING_EQUAL(s2.from, "");
    DEC_OLD(history, h2, golden_n1_history);
    CU_ASSERT_EQUAL(h2.n, 3);
    CU_ASSERT(h2.entries[0].slot == 0 && h2.entries[2].slot == 0);
#undef DEC_OLD
}

/* An elected with three slots: slot 1 held, slot 2 empty (epoch kept). */
static void
fill_slots(struct zke_elected *e)
{
    fill_elected(e);
    e->nslots = 2;
    e->slots[0].slot = 1;
    strcpy(e->slots[0].leader, "n5");
    strcpy(e->slots[0].leader_site, "dc2");
    strcpy(e->slots[0].leader_znode, "n5_" HEX32 "_0000000012");
    e->slots[0].epoch = ZKE_EPOCH_MAX;
    e->slots[0].since_ms = 1795662000000LL;
    e->slots[1].slot = 2;
    e->slots[1].epoch = 4;
}

static void
test_rt_slots(void)
{
    int i;

    fill_slots(&e1);
    ROUND_TRIP(elected, &e1, &e2);
    e1.slots[1].epoch = 0;                      /* never held */
    ROUND_TRIP(elected, &e1, &e2);
    memset(e1.leader, 0, sizeof(e1.leader));    /* slot 0 empty too */
    ROUND_TRIP(elected, &e1, &e2);
    /* sixteen leaders: fifteen slots, longest strings */
    fill_elected(&e1);
    for (i = 0; i < ZKE_LEADERS_MAX - 1; i++) {
        e1.slots[i].slot = i + 1;
        memset(e1.slots[i].leader, 'l', ZKE_ID_MAX);
        e1.slots[i].leader[0] = LETTERS[i];
        memset(e1.slots[i].leader_site, 's', ZKE_SITE_MAX);
        memset(e1.slots[i].leader_znode, 'z', ZKE_ZNODE_MAX);
        e1.slots[i].epoch = ZKE_EPOCH_MAX - (uint64_t)i;
        e1.slots[i].since_ms = (int64_t)ZKE_EPOCH_MAX;
    }
    e1.nslots = ZKE_LEADERS_MAX - 1;
    ROUND_TRIP(elected, &e1, &e2);
}

static void
test_rt_slot_fields(void)
{
    fill_leader(&l1);
    l1.slot = 1;
    ROUND_TRIP(leader, &l1, &l2);
    l1.slot = ZKE_LEADERS_MAX - 1;
    ROUND_TRIP(leader, &l1, &l2);
    fill_history(&h1);
    h1.entries[1].slot = 3;
    h1.entries[2].slot = ZKE_LEADERS_MAX - 1;
    ROUND_TRIP(history, &h1, &h2);
    fill_switchover(&s1);
    strcpy(s1.from, "n3");                      /* --from n3 --to n5 */
    ROUND_TRIP(switchover, &s1, &s2);
    memset(s1.to, 0, sizeof(s1.to));            /* --from n3 */
    ROUND_TRIP(switchover, &s1, &s2);
    strcpy(s1.site, "dc2");                     /* --from n3 --site dc2 */
    ROUND_TRIP(switchover, &s1, &s2);
    fill_config(&c1);
    c1.leaders = 2;
    ROUND_TRIP(config, &c1, &c2);
    c1.leaders = ZKE_LEADERS_MAX;
    ROUND_TRIP(config, &c1, &c2);
    fill_member(&m1);
    m1.max_leaders = 1;                         /* a policy without choose_set */
    ROUND_TRIP(member, &m1, &m2);
    m1.max_leaders = ZKE_LEADERS_MAX;
    ROUND_TRIP(member, &m1, &m2);
}

/* Where the new keys go, exactly. */
static void
test_golden_slots(void)
{
    char *out = NULL;
    size_t n = 0;

    fill_slots(&e1);
    CU_ASSERT_EQUAL_FATAL(zke_elected_encode(&e1, &out, &n), 0);
    CU_ASSERT(strstr(out, "\"until_ms\":1795662000000},\"slots\":["
        "{\"slot\":1,\"leader\":\"n5\",\"leader_site\":\"dc2\","
        "\"leader_znode\":\"n5_" HEX32 "_0000000012\",\"epoch\":9007199254740991,"
        "\"since_ms\":1795662000000},{\"slot\":2,\"leader\":null,"
        "\"leader_site\":\"\",\"leader_znode\":\"\",\"epoch\":4,\"since_ms\":0}]}")
        != NULL);
    free(out);
    fill_leader(&l1);
    l1.slot = 2;
    GOLDEN(leader, &l1, "{\"v\":1,\"id\":\"n1\",\"status\":\"READY\",\"epoch\":7,"
        "\"since_ms\":1700000000000,\"slot\":2}");
    memset(&c1, 0, sizeof(c1));
    c1.leaders = 3;
    GOLDEN(config, &c1, "{\"v\":1,\"policy\":\"\",\"sites\":{},\"watchdog_ms\":0,"
        "\"exclude_ms\":0,\"options\":{},\"paused\":false,\"leaders\":3}");
    memset(&s1, 0, sizeof(s1));
    s1.id = 12;
    strcpy(s1.from, "n3");
    GOLDEN(switchover, &s1, "{\"v\":1,\"id\":12,\"to\":null,\"at_ms\":0,"
        "\"by\":\"\",\"from\":\"n3\"}");
    memset(&m1, 0, sizeof(m1));
    strcpy(m1.id, "n1");
    m1.max_leaders = 1;
    GOLDEN(member, &m1, "{\"v\":1,\"id\":\"n1\",\"site\":\"\",\"priority\":0,"
        "\"host\":\"\",\"pid\":0,\"version\":\"\",\"tags\":[],\"eligible\":false,"
        "\"healthy\":false,\"guid\":\"\",\"max_leaders\":1}");
    memset(&h1, 0, sizeof(h1));
    h1.entries[0].epoch = 9;
    strcpy(h1.entries[0].leader, "n5");
    strcpy(h1.entries[0].elector, "n1");
    strcpy(h1.entries[0].policy, "site");
    h1.entries[0].slot = 1;
    h1.n = 1;
    GOLDEN(history, &h1, "{\"v\":1,\"entries\":[{\"epoch\":9,\"leader\":\"n5\","
        "\"elector\":\"n1\",\"policy\":\"site\",\"reason\":\"\",\"at_ms\":0,"
        "\"slot\":1}]}");
}

static void
test_refuse_slots(void)
{
    fill_slots(&e1); e1.nslots = -1;                 REFUSE(elected, &e1);
    fill_slots(&e1); e1.nslots = ZKE_LEADERS_MAX;    REFUSE(elected, &e1);
    fill_slots(&e1); e1.slots[0].slot = 0;           REFUSE(elected, &e1);
    fill_slots(&e1); e1.slots[0].slot = 2;           REFUSE(elected, &e1);
    fill_slots(&e1); e1.slots[1].slot = 3;           REFUSE(elected, &e1);
    fill_slots(&e1); e1.slots[1].slot = 1;           REFUSE(elected, &e1);
    fill_slots(&e1); strcpy(e1.slots[0].leader, "n2"); REFUSE(elected, &e1); /* slot 0's */
    fill_slots(&e1); strcpy(e1.slots[1].leader, "n5"); REFUSE(elected, &e1); /* slot 1's */
    fill_slots(&e1); strcpy(e1.slots[0].leader, "a b"); REFUSE(elected, &e1);
    fill_slots(&e1); memset(e1.slots[0].leader, 'a', sizeof(e1.slots[0].leader));
    REFUSE(elected, &e1);
    fill_slots(&e1); e1.slots[0].epoch = 0;          REFUSE(elected, &e1); /* held */
    fill_slots(&e1); e1.slots[1].epoch = ZKE_EPOCH_MAX + 1; REFUSE(elected, &e1);
    fill_slots(&e1); strcpy(e1.slots[0].leader_site, "-dc"); REFUSE(elected, &e1);
    fill_slots(&e1); strcpy(e1.slots[0].leader_znode, "a/b"); REFUSE(elected, &e1);
    fill_slots(&e1); e1.slots[1].since_ms = -1;      REFUSE(elected, &e1);
    fill_leader(&l1); l1.slot = ZKE_LEADERS_MAX;     REFUSE(leader, &l1);
    fill_leader(&l1); l1.slot = -1;                  REFUSE(leader, &l1);
    fill_history(&h1); h1.entries[1].slot = ZKE_LEADERS_MAX; REFUSE(history, &h1);
    fill_history(&h1); h1.entries[1].slot = -1;      REFUSE(history, &h1);
    fill_config(&c1); c1.leaders = ZKE_LEADERS_MAX + 1; REFUSE(config, &c1);
    fill_member(&m1); m1.max_leaders = ZKE_LEADERS_MAX + 1; REFUSE(member, &m1);
    fill_switchover(&s1); strcpy(s1.from, "n 3");    REFUSE(switchover, &s1);
    fill_switchover(&s1); strcpy(s1.from, "n5");     REFUSE(switchover, &s1); /* = to */
    fill_switchover(&s1); memset(s1.from, 'f', sizeof(s1.from)); REFUSE(switchover, &s1);
}

/* ------------------------------------------------------------------------ */
/* Issue 18: successor                                                      */
/* ------------------------------------------------------------------------ */

/* Slot 0: n1 -> n2 (no site); slot 2: n4 -> n5 in dc2. */
static void
fill_successor(struct zke_successor *s)
{
    memset(s, 0, sizeof(*s));
    s->elected_version = 41;
    s->next_epoch = 12;
    strcpy(s->elector, "n3");
    strcpy(s->policy, "site");
    s->at_ms = 1795662000000LL;
    strcpy(s->slots[0].leader, "n1");
    strcpy(s->slots[0].leader_znode, "n1_" HEX32 "_0000000001");
    strcpy(s->slots[0].successor, "n2");
    strcpy(s->slots[0].successor_znode, "n2_" HEX32 "_0000000002");
    s->slots[1].slot = 2;
    strcpy(s->slots[1].leader, "n4");
    strcpy(s->slots[1].leader_znode, "n4_" HEX32 "_0000000004");
    strcpy(s->slots[1].successor, "n5");
    strcpy(s->slots[1].successor_site, "dc2");
    strcpy(s->slots[1].successor_znode, "n5_" HEX32 "_0000000005");
    s->nslots = 2;
}

static void
test_rt_successor(void)
{
    int i;

    fill_successor(&su1);
    ROUND_TRIP(successor, &su1, &su2);
    memset(su1.slots, 0, sizeof(su1.slots));    /* nobody to succeed */
    su1.nslots = 0;
    su1.at_ms = 0;
    su1.elected_version = 0;
    ROUND_TRIP(successor, &su1, &su2);
    /* sixteen slots, in reverse order, longest strings and numbers */
    memset(&su1, 0, sizeof(su1));
    su1.elected_version = INT32_MAX;
    su1.next_epoch = ZKE_EPOCH_MAX;
    memset(su1.elector, 'e', ZKE_ID_MAX);
    memset(su1.policy, 'p', ZKE_NAME_MAX);
    su1.at_ms = (int64_t)ZKE_EPOCH_MAX;
    for (i = 0; i < ZKE_LEADERS_MAX; i++) {
        su1.slots[i].slot = ZKE_LEADERS_MAX - 1 - i;
        memset(su1.slots[i].leader, 'l', ZKE_ID_MAX);
        su1.slots[i].leader[0] = LETTERS[i];
        memset(su1.slots[i].leader_znode, 'z', ZKE_ZNODE_MAX);
        memset(su1.slots[i].successor, 's', ZKE_ID_MAX);
        su1.slots[i].successor[0] = LETTERS[i];
        memset(su1.slots[i].successor_site, 'd', ZKE_SITE_MAX);
        memset(su1.slots[i].successor_znode, 'y', ZKE_ZNODE_MAX);
    }
    su1.nslots = ZKE_LEADERS_MAX;
    ROUND_TRIP(successor, &su1, &su2);
}

/* The bytes the elector writes: every field, "slot" only when not 0,
   "history_version" only when not negative. */
static void
test_golden_successor(void)
{
    struct zke_successor d;
    char err[256];
    const char *p;

    fill_successor(&su1);
    su1.history_version = 7;
    su1.config_version = 3;
    su1.slots[0].successor_version = 5;
    su1.slots[1].successor_version = -1;
    GOLDEN(successor, &su1, "{\"v\":1,\"elected_version\":41,\"history_version\":7,"
        "\"config_version\":3,\"next_epoch\":12,"
        "\"elector\":\"n3\",\"policy\":\"site\",\"at_ms\":1795662000000,"
        "\"slots\":[{\"leader\":\"n1\",\"leader_znode\":\"n1_" HEX32
        "_0000000001\",\"successor\":\"n2\",\"successor_site\":\"\","
        "\"successor_znode\":\"n2_" HEX32 "_0000000002\",\"successor_version\":5},"
        "{\"slot\":2,"
        "\"leader\":\"n4\",\"leader_znode\":\"n4_" HEX32 "_0000000004\","
        "\"successor\":\"n5\",\"successor_site\":\"dc2\",\"successor_znode\":"
        "\"n5_" HEX32 "_0000000005\"}]}");
    su1.nslots = 0;
    su1.history_version = -1;
    su1.config_version = -1;
    GOLDEN(successor, &su1, "{\"v\":1,\"elected_version\":41,\"next_epoch\":12,"
        "\"elector\":\"n3\",\"policy\":\"site\",\"at_ms\":1795662000000,"
        "\"slots\":[]}");
    /* absent: -1 (a record without it allows no handover); 0 is a version */
    p = "{\"v\":1,\"elected_version\":4,\"next_epoch\":2,\"elector\":\"n3\","
        "\"policy\":\"site\",\"slots\":[]}";
    CU_ASSERT_EQUAL(zke_successor_decode(p, (int)strlen(p), &d, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(d.history_version, -1);
    CU_ASSERT_EQUAL(d.config_version, -1);
    p = "{\"v\":1,\"elected_version\":4,\"history_version\":0,\"next_epoch\":2,"
        "\"elector\":\"n3\",\"policy\":\"site\",\"slots\":[]}";
    CU_ASSERT_EQUAL(zke_successor_decode(p, (int)strlen(p), &d, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(d.history_version, 0);
    p = "{\"v\":1,\"elected_version\":4,\"history_version\":-1,\"next_epoch\":2,"
        "\"elector\":\"n3\",\"policy\":\"site\",\"slots\":[]}";
    CU_ASSERT_NOT_EQUAL(zke_successor_decode(p, (int)strlen(p), &d, err, sizeof(err)), 0);
    CU_ASSERT(strstr(err, "history_version") != NULL);
}

static void
test_refuse_successor(void)
{
    fill_successor(&su1); su1.elected_version = -1;  REFUSE(successor, &su1);
    fill_successor(&su1); su1.next_epoch = 0;        REFUSE(successor, &su1);
    fill_successor(&su1); su1.next_epoch = ZKE_EPOCH_MAX + 1; REFUSE(successor, &su1);
    fill_successor(&su1); su1.next_epoch = UINT64_MAX; REFUSE(successor, &su1);
    fill_successor(&su1); su1.elector[0] = '\0';     REFUSE(successor, &su1);
    fill_successor(&su1); strcpy(su1.elector, "n 3"); REFUSE(successor, &su1);
    fill_successor(&su1); su1.policy[0] = '\0';      REFUSE(successor, &su1);
    fill_successor(&su1); memset(su1.policy, 'p', sizeof(su1.policy)); REFUSE(successor, &su1);
    fill_successor(&su1); su1.at_ms = -1;            REFUSE(successor, &su1);
    fill_successor(&su1); su1.nslots = -1;           REFUSE(successor, &su1);
    fill_successor(&su1); su1.nslots = ZKE_LEADERS_MAX + 1; REFUSE(successor, &su1);
    fill_successor(&su1); su1.slots[1].slot = 0;     REFUSE(successor, &su1); /* twice */
    fill_successor(&su1); su1.slots[1].slot = -1;    REFUSE(successor, &su1);
    fill_successor(&su1); su1.slots[1].slot = ZKE_LEADERS_MAX; REFUSE(successor, &su1);
    fill_successor(&su1); strcpy(su1.slots[1].successor, "n4"); REFUSE(successor, &su1); /* = leader */
    fill_successor(&su1); su1.slots[0].leader[0] = '\0'; REFUSE(successor, &su1);
    fill_successor(&su1); strcpy(su1.slots[0].leader, "a/b"); REFUSE(successor, &su1);
    fill_successor(&su1); memset(su1.slots[0].leader, 'a', sizeof(su1.slots[0].leader));
    REFUSE(successor, &su1);
    fill_successor(&su1); su1.slots[0].successor[0] = '\0'; REFUSE(successor, &su1);
    fill_successor(&su1); strcpy(su1.slots[0].successor, "-n2"); REFUSE(successor, &su1);
    fill_successor(&su1); strcpy(su1.slots[1].successor_site, "d c"); REFUSE(successor, &su1);
    fill_successor(&su1); su1.slots[0].leader_znode[0] = '\0'; REFUSE(successor, &su1);
    fill_successor(&su1); strcpy(su1.slots[0].leader_znode, "a/b"); REFUSE(successor, &su1);
    fill_successor(&su1); su1.slots[1].successor_znode[0] = '\0'; REFUSE(successor, &su1);
    fill_successor(&su1); memset(su1.slots[1].successor_znode, 'z',
        sizeof(su1.slots[1].successor_znode));      REFUSE(successor, &su1);
}

static CU_TestInfo encode_tests[] = {
    { "rt_member", test_rt_member },
    { "rt_member_minimal", test_rt_member_minimal },
    { "rt_member_full_tags", test_rt_member_full_tags },
    { "rt_elected", test_rt_elected },
    { "rt_elected_no_leader", test_rt_elected_no_leader },
    { "rt_elected_hosts", test_rt_elected_hosts },
    { "rt_wake", test_rt_wake },
    { "rt_fast_handover", test_rt_fast_handover },
    { "rt_leader", test_rt_leader },
    { "rt_config", test_rt_config },
    { "rt_config_defaults", test_rt_config_defaults },
    { "rt_switchover", test_rt_switchover },
    { "rt_switchover_dr", test_rt_switchover_dr },
    { "rt_config_dr", test_rt_config_dr },
    { "rt_elected_hold", test_rt_elected_hold },
    { "golden_dr", test_golden_dr },
    { "rt_history", test_rt_history },
    { "rt_largest", test_rt_largest },
    { "golden_leader", test_golden_leader },
    { "golden_member", test_golden_member },
    { "golden_nulls", test_golden_nulls },
    { "refuse_member", test_refuse_member },
    { "refuse_elected", test_refuse_elected },
    { "refuse_leader", test_refuse_leader },
    { "refuse_config", test_refuse_config },
    { "refuse_switchover_history", test_refuse_switchover_history },
    { "refuse_counts", test_refuse_counts },
    { "encode_bad_arguments", test_encode_bad_arguments },
    { "golden_n1", test_golden_n1 },
    { "old_payloads_decode", test_old_payloads_decode },
    { "rt_slots", test_rt_slots },
    { "rt_slot_fields", test_rt_slot_fields },
    { "golden_slots", test_golden_slots },
    { "refuse_slots", test_refuse_slots },
    { "rt_successor", test_rt_successor },
    { "golden_successor", test_golden_successor },
    { "refuse_successor", test_refuse_successor },
    CU_TEST_INFO_NULL
};

/* ------------------------------------------------------------------------ */
/* Suite "messages"                                                         */
/* ------------------------------------------------------------------------ */

static void
test_msg_epoch_exact(void)
{
    CU_ASSERT_EQUAL(decode_lit(dec_elected, ELE("0", "'n2'", "")),
        ZKELECT_ERANGE);
    CU_ASSERT_STRING_EQUAL(errbuf, "elected: field \"epoch\": expected an "
        "integer from 1 to 9007199254740991");
}

static void
test_msg_missing_exact(void)
{
    CU_ASSERT_EQUAL(decode_lit(dec_leader, "{'v':1,'id':'n1','epoch':3}"),
        ZKELECT_EMISSING);
    CU_ASSERT_STRING_EQUAL(errbuf, "leader: field \"status\": missing");
}

static void
test_msg_type_names_both(void)
{
    CU_ASSERT_EQUAL(decode_lit(dec_member, MEM("'n1'", "'dc1'", "'5'", "")),
        ZKELECT_ETYPE);
    CU_ASSERT(strstr(errbuf, "expected an integer") != NULL);
    CU_ASSERT(strstr(errbuf, "got a string") != NULL);
}

/* Untrusted text is escaped: no raw control or non-ASCII byte, quotes doubled. */
static void
test_msg_escapes(void)
{
    const char *p;

    CU_ASSERT_EQUAL(decode_lit(dec_member,
        MEM("'a\\\"b\\u0001\\u00e9\x7f'", "'dc1'", "5", "")), ZKELECT_EBADVALUE);
    CU_ASSERT(strstr(errbuf, "\"a\\\"b\\x01\\xc3\\xa9\\x7f\"") != NULL);
    for (p = errbuf; *p != '\0'; p++)
        CU_ASSERT(*p >= 0x20 && *p < 0x7f);
}

static void
test_msg_truncates_value(void)
{
    CU_ASSERT_EQUAL(decode_lit(dec_config, CFG(",'options':{'k':'" A64 A64
        "\\n'}")), ZKELECT_EBADVALUE);
    CU_ASSERT(strstr(errbuf, "field \"options.k\"") != NULL);
    CU_ASSERT(strstr(errbuf, "...") != NULL);
    CU_ASSERT(strstr(errbuf, A64) == NULL);     /* not the whole value */
    CU_ASSERT(strlen(errbuf) < 200);
}

static void
test_msg_escapes_key(void)
{
    CU_ASSERT_EQUAL(decode_lit(dec_config, CFG(",'sites':{'d\\tc':1}")),
        ZKELECT_EBADVALUE);
    CU_ASSERT(strstr(errbuf, "field \"sites.d\\x09c\"") != NULL);
    CU_ASSERT(strchr(errbuf, '\t') == NULL);
}

static void
test_msg_positions(void)
{
    CU_ASSERT_EQUAL(decode_lit(dec_member, "{'v':1,'id':'n1'}x"),
        ZKELECT_ETRAILING);
    CU_ASSERT(strstr(errbuf, "byte 17") != NULL);
    CU_ASSERT_EQUAL(decode_lit(dec_member, "{'v':1,'id':'\xE2\x82'}"),
        ZKELECT_EUTF8);
    CU_ASSERT(strstr(errbuf, "byte 13") != NULL);
}

static void
test_msg_small_buffer(void)
{
    char small[10];
    int n = load(MEM("'a b'", "'dc1'", "5", ""),
        sizeof(MEM("'a b'", "'dc1'", "5", "")) - 1);

    memset(small, 'X', sizeof(small));
    CU_ASSERT_EQUAL(zke_member_decode(work, n, &g_member, small, sizeof(small)),
        ZKELECT_EBADVALUE);
    CU_ASSERT_STRING_EQUAL(small, "member: f");
    CU_ASSERT_EQUAL(zke_member_decode(work, n, &g_member, NULL, 0),
        ZKELECT_EBADVALUE);
    small[0] = 'X';
    CU_ASSERT_EQUAL(zke_member_decode(work, n, &g_member, small, 0),
        ZKELECT_EBADVALUE);
    CU_ASSERT_EQUAL(small[0], 'X');     /* errlen 0: nothing written */
}

static void
test_msg_cleared_on_success(void)
{
    CU_ASSERT_EQUAL(decode_lit(dec_leader, LEA("'n'", "'READY'", "1", "")), 0);
    CU_ASSERT_STRING_EQUAL(errbuf, "");
}

static CU_TestInfo message_tests[] = {
    { "epoch_exact", test_msg_epoch_exact },
    { "missing_exact", test_msg_missing_exact },
    { "type_names_both", test_msg_type_names_both },
    { "escapes", test_msg_escapes },
    { "truncates_value", test_msg_truncates_value },
    { "escapes_key", test_msg_escapes_key },
    { "positions", test_msg_positions },
    { "small_buffer", test_msg_small_buffer },
    { "cleared_on_success", test_msg_cleared_on_success },
    CU_TEST_INFO_NULL
};

/* ------------------------------------------------------------------------ */
/* Suite "misc": validators, status names, history_push                     */
/* ------------------------------------------------------------------------ */

static void
test_id_valid(void)
{
    CU_ASSERT_EQUAL(zke_id_valid("n1"), 1);
    CU_ASSERT_EQUAL(zke_id_valid("_x"), 1);
    CU_ASSERT_EQUAL(zke_id_valid("a.b-c_D9"), 1);
    CU_ASSERT_EQUAL(zke_id_valid(A64), 1);
    CU_ASSERT_EQUAL(zke_id_valid(A64 "a"), 0);
    CU_ASSERT_EQUAL(zke_id_valid(""), 0);
    CU_ASSERT_EQUAL(zke_id_valid(".x"), 0);
    CU_ASSERT_EQUAL(zke_id_valid("-x"), 0);
    CU_ASSERT_EQUAL(zke_id_valid("a/b"), 0);
    CU_ASSERT_EQUAL(zke_id_valid("a b"), 0);
    CU_ASSERT_EQUAL(zke_id_valid("a\xC3\xA9"), 0);
    CU_ASSERT_EQUAL(zke_id_valid(NULL), 0);
}

static void
test_site_valid(void)
{
    CU_ASSERT_EQUAL(zke_site_valid(""), 1);
    CU_ASSERT_EQUAL(zke_site_valid("dc1"), 1);
    CU_ASSERT_EQUAL(zke_site_valid(A64), 1);
    CU_ASSERT_EQUAL(zke_site_valid(A64 "a"), 0);
    CU_ASSERT_EQUAL(zke_site_valid("d c"), 0);
    CU_ASSERT_EQUAL(zke_site_valid(".dc"), 0);
    CU_ASSERT_EQUAL(zke_site_valid(NULL), 0);
}

static void
test_name_valid(void)
{
    CU_ASSERT_EQUAL(zke_name_valid("site"), 1);
    CU_ASSERT_EQUAL(zke_name_valid("takeover-failed"), 1);
    CU_ASSERT_EQUAL(zke_name_valid("Round_Robin.v2"), 1);
    CU_ASSERT_EQUAL(zke_name_valid(""), 0);
    CU_ASSERT_EQUAL(zke_name_valid("-x"), 0);
    CU_ASSERT_EQUAL(zke_name_valid("a=b"), 0);
    CU_ASSERT_EQUAL(zke_name_valid(A64 "a"), 0);
    CU_ASSERT_EQUAL(zke_name_valid(NULL), 0);
}

static void
test_status_name(void)
{
    CU_ASSERT_STRING_EQUAL(zkelect_status_name(ZKELECT_STATUS_PROGRESS), "PROGRESS");
    CU_ASSERT_STRING_EQUAL(zkelect_status_name(ZKELECT_STATUS_READY), "READY");
    CU_ASSERT_STRING_EQUAL(zkelect_status_name(0), "NONE");
    CU_ASSERT_STRING_EQUAL(zkelect_status_name(7), "?");
    CU_ASSERT_EQUAL(ZKELECT_STATUS_PROGRESS, 1);
    CU_ASSERT_EQUAL(ZKELECT_STATUS_READY, 2);
}

static void
test_history_push(void)
{
    struct zke_history_entry x;
    int i;

    memset(&h1, 0, sizeof(h1));
    memset(&x, 0, sizeof(x));
    strcpy(x.elector, "n0");
    strcpy(x.policy, "p");
    for (i = 1; i <= ZKE_HISTORY_MAX + 5; i++) {
        x.epoch = (uint64_t)i;
        snprintf(x.leader, sizeof(x.leader), "n%d", i);
        zke_history_push(&h1, &x);
        CU_ASSERT_EQUAL(h1.n, i < ZKE_HISTORY_MAX ? i : ZKE_HISTORY_MAX);
    }
    /* The 5 oldest were dropped; order is oldest first. */
    CU_ASSERT_EQUAL(h1.entries[0].epoch, 6);
    CU_ASSERT_STRING_EQUAL(h1.entries[0].leader, "n6");
    CU_ASSERT_EQUAL(h1.entries[ZKE_HISTORY_MAX - 1].epoch, ZKE_HISTORY_MAX + 5);
    for (i = 1; i < ZKE_HISTORY_MAX; i++)
        CU_ASSERT_EQUAL(h1.entries[i].epoch, h1.entries[i - 1].epoch + 1);
    /* Pushing an entry of the history itself copies it before shifting. */
    zke_history_push(&h1, &h1.entries[0]);
    CU_ASSERT_EQUAL(h1.entries[ZKE_HISTORY_MAX - 1].epoch, 6);
    CU_ASSERT_EQUAL(h1.entries[0].epoch, 7);
    /* The pushed history still encodes. */
    ROUND_TRIP(history, &h1, &h2);
}

static void
test_history_push_small(void)
{
    struct zke_history_entry x;

    memset(&h1, 0, sizeof(h1));
    memset(&x, 0, sizeof(x));
    x.epoch = 9;
    zke_history_push(&h1, &x);
    CU_ASSERT_EQUAL(h1.n, 1);
    CU_ASSERT_EQUAL(h1.entries[0].epoch, 9);
    zke_history_push(NULL, &x);         /* no crash */
    zke_history_push(&h1, NULL);
    CU_ASSERT_EQUAL(h1.n, 1);
}

static CU_TestInfo misc_tests[] = {
    { "id_valid", test_id_valid },
    { "site_valid", test_site_valid },
    { "name_valid", test_name_valid },
    { "status_name", test_status_name },
    { "history_push", test_history_push },
    { "history_push_small", test_history_push_small },
    CU_TEST_INFO_NULL
};

/* ------------------------------------------------------------------------ */
/* Suite "fault": the Nth cJSON allocation fails, for every N               */
/* ------------------------------------------------------------------------ */

static long fault_at = -1;  /* index of the allocation that fails, -1: none */
static long fault_count;    /* allocations seen since fault_on() */

static void *
fault_malloc(size_t n)
{
    if (fault_at >= 0 && fault_count++ == fault_at)
        return NULL;
    return malloc(n);
}

static void
fault_free(void *p)
{
    free(p);
}

static void
fault_on(long at)
{
    cJSON_Hooks hooks = { fault_malloc, fault_free };

    fault_at = at;
    fault_count = 0;
    cJSON_InitHooks(&hooks);
}

static void
fault_off(void)
{
    cJSON_InitHooks(NULL);
    fault_at = -1;
}

/*
 * Run op with the Nth allocation failing, N = 0, 1, ... until it succeeds.
 * Every failing run must return ZKELECT_ENOMEM (and leak nothing: LSan).
 */
#define FAULT_LOOP(op, cleanup)                                              \
    do {                                                                     \
        long at_;                                                            \
        int rc_ = -1, bad_ = 0;                                              \
        for (at_ = 0; at_ < 100000; at_++) {                                 \
            fault_on(at_);                                                   \
            rc_ = (op);                                                      \
            fault_off();                                                     \
            if (rc_ == 0) {                                                  \
                cleanup;                                                     \
                break;                                                       \
            }                                                                \
            if (rc_ != ZKELECT_ENOMEM)                                       \
                bad_++;                                                      \
        }                                                                    \
        CU_ASSERT_EQUAL(rc_, 0);                                             \
        CU_ASSERT_EQUAL(bad_, 0);                                            \
        CU_ASSERT(at_ > 3);     /* some allocations were made and failed */  \
    } while (0)

static void
test_fault_encode(void)
{
    char *out = NULL;
    size_t n = 0;

    fill_elected(&e1);
    FAULT_LOOP(zke_elected_encode(&e1, &out, &n), free(out));
    fill_config(&c1);
    FAULT_LOOP(zke_config_encode(&c1, &out, &n), free(out));
    fill_member(&m1);
    FAULT_LOOP(zke_member_encode(&m1, &out, &n), free(out));
    fill_history(&h1);
    FAULT_LOOP(zke_history_encode(&h1, &out, &n), free(out));
    fill_successor(&su1);
    FAULT_LOOP(zke_successor_encode(&su1, &out, &n), free(out));
}

static void
test_fault_decode(void)
{
    char *out = NULL;
    size_t n = 0;

    fill_elected(&e1);
    CU_ASSERT_EQUAL_FATAL(zke_elected_encode(&e1, &out, &n), 0);
    FAULT_LOOP(zke_elected_decode(out, (int)n, &e2, NULL, 0), (void)0);
    CU_ASSERT(memcmp(&e1, &e2, sizeof(e1)) == 0);
    free(out);
    fill_config(&c1);
    CU_ASSERT_EQUAL_FATAL(zke_config_encode(&c1, &out, &n), 0);
    FAULT_LOOP(zke_config_decode(out, (int)n, &c2, NULL, 0), (void)0);
    free(out);
    fill_successor(&su1);
    CU_ASSERT_EQUAL_FATAL(zke_successor_encode(&su1, &out, &n), 0);
    FAULT_LOOP(zke_successor_decode(out, (int)n, &su2, NULL, 0), (void)0);
    CU_ASSERT(memcmp(&su1, &su2, sizeof(su1)) == 0);
    free(out);
}

static CU_TestInfo fault_tests[] = {
    { "encode", test_fault_encode },
    { "decode", test_fault_decode },
    CU_TEST_INFO_NULL
};

static CU_SuiteInfo suites[] = {
    { "decode", NULL, NULL, NULL, NULL, decode_tests },
    { "values", NULL, NULL, NULL, NULL, values_tests },
    { "generated", NULL, NULL, NULL, NULL, generated_tests },
    { "encode", NULL, NULL, NULL, NULL, encode_tests },
    { "messages", NULL, NULL, NULL, NULL, message_tests },
    { "misc", NULL, NULL, NULL, NULL, misc_tests },
    { "fault", NULL, NULL, NULL, NULL, fault_tests },
    CU_SUITE_INFO_NULL
};

int
main(int argc, char **argv)
{
    return cutest_main(argc, argv, suites);
}
