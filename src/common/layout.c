/*
 * layout.c - the znodes of a group under its base path, and the names of
 * the election children:
 *
 *   <base>/nodes/<id>                    ephemeral: one member record each
 *   <base>/election/<id>_<guid>_<seq>    ephemeral sequential: the order of
 *                                        candidacy; the lowest is the elector
 *   <base>/elected, leader, config, switchover, history
 *
 * The guid (32 lower-case hex digits, new per session) tells a registration
 * of ours from one of an earlier session of the same id, and finds our own
 * znode after a create whose outcome is unknown.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "codec.h"
#include "zkecommon.h"

static const char *const layout_names[ZKE_ZN__COUNT] = {
    [ZKE_ZN_NODES] = "nodes",
    [ZKE_ZN_ELECTION] = "election",
    [ZKE_ZN_ELECTED] = "elected",
    [ZKE_ZN_LEADER] = "leader",
    [ZKE_ZN_CONFIG] = "config",
    [ZKE_ZN_SWITCHOVER] = "switchover",
    [ZKE_ZN_HISTORY] = "history",
    [ZKE_ZN_SUCCESSOR] = "successor",
};

const char *
zke_layout_name(enum zke_znode z)
{
    if ((int)z < 0 || z >= ZKE_ZN__COUNT)
        return "?";
    return layout_names[z];
}

int
zke_layout_base_valid(const char *p, size_t max)
{
    const char *c;
    size_t n;

    if (p == NULL)
        return 0;
    n = strlen(p);
    if (max > ZKE_BASE_MAX)
        max = ZKE_BASE_MAX;
    if (n < 2 || n > max || p[0] != '/' || p[n - 1] == '/')
        return 0;
    for (c = p; *c; c++) {
        if (c[0] == '/' && c[1] == '/')
            return 0;
        if (c[0] == '/' && c[1] == '.' && (c[2] == '/' || c[2] == '\0' ||
                                           (c[2] == '.' && (c[3] == '/' || c[3] == '\0'))))
            return 0;
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return 0;
    }
    return 1;
}

int
zke_layout_path(char *out, size_t outlen, const char *base, enum zke_znode z,
                const char *child)
{
    int n;

    if (out == NULL || outlen == 0)
        return -1;
    out[0] = '\0';
    if (base == NULL || (int)z < 0 || z >= ZKE_ZN__COUNT)
        return -1;
    if (child != NULL)
        n = snprintf(out, outlen, "%s/%s/%s", base, layout_names[z], child);
    else
        n = snprintf(out, outlen, "%s/%s", base, layout_names[z]);
    if (n < 0 || (size_t)n >= outlen) {
        out[0] = '\0';
        return -1;
    }
    return 0;
}

int
zke_child_parse(const char *name, char *id, size_t idlen, char *guid, int64_t *seq)
{
    const char *u2, *u1, *p;
    char idbuf[ZKE_ID_MAX + 1];
    int64_t s = 0;
    size_t n;

    if (name == NULL || id == NULL || seq == NULL)
        return -1;
    u2 = strrchr(name, '_');
    if (u2 == NULL || strlen(u2 + 1) != ZKE_SEQ_DIGITS)
        return -1;
    for (p = u2 + 1; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        s = s * 10 + (*p - '0');
    }
    if (u2 - name < ZKE_GUID_LEN + 2)
        return -1;
    u1 = u2 - ZKE_GUID_LEN - 1;
    if (*u1 != '_')
        return -1;
    for (p = u1 + 1; p < u2; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return -1;
    n = (size_t)(u1 - name);
    if (n == 0 || n > ZKE_ID_MAX || n >= idlen)
        return -1;
    memcpy(idbuf, name, n);
    idbuf[n] = '\0';
    if (!zke_id_valid(idbuf))
        return -1;
    memcpy(id, idbuf, n + 1);
    if (guid) {
        memcpy(guid, u1 + 1, ZKE_GUID_LEN);
        guid[ZKE_GUID_LEN] = '\0';
    }
    *seq = s;
    return 0;
}
