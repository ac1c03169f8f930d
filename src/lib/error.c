/* error.c - the error table and the one ZooKeeper return code boundary. */
#include "config.h"

#include <zookeeper/zookeeper.h>

#include "zkelect.h"
#include "zkerr.h"

ZKELECT_API const char *
zkelect_strerror(int err)
{
#define ZKELECT_STRERROR_CASE(name, value, text) \
    case (value):                               \
        return (text);
    switch (err) {
        ZKELECT_ERRNO_MAP(ZKELECT_STRERROR_CASE)
    }
#undef ZKELECT_STRERROR_CASE
    return "unknown error";
}

ZKELECT_API const char *
zkelect_errname(int err)
{
#define ZKELECT_ERRNAME_CASE(name, value, text) \
    case (value):                              \
        return #name;
    switch (err) {
        ZKELECT_ERRNO_MAP(ZKELECT_ERRNAME_CASE)
    }
#undef ZKELECT_ERRNAME_CASE
    return "UNKNOWN";
}

ZKELECT_API const char *
zkelect_version(void)
{
    return PACKAGE_VERSION;
}

/*
 * The one place ZooKeeper's return codes become ours. ZOO_ error constants
 * are enum values (unlike the ZOO_*_STATE ones), so a switch works here.
 */
int
zkerr_from_zk(int rc)
{
    switch (rc) {
    case ZOK:                   return ZKELECT_OK;
    case ZCONNECTIONLOSS:       return ZKELECT_ECONNLOSS;
    case ZOPERATIONTIMEOUT:     return ZKELECT_ETIMEDOUT;
    case ZSESSIONEXPIRED:       return ZKELECT_EEXPIRED;
    case ZINVALIDSTATE:         return ZKELECT_EEXPIRED;   /* calls on a dead handle */
    case ZNOAUTH:               return ZKELECT_ENOAUTH;
    case ZAUTHFAILED:           return ZKELECT_EAUTHFAILED;
    case ZINVALIDACL:           return ZKELECT_ENOAUTH;
    case ZNONODE:               return ZKELECT_ENONODE;
    case ZNODEEXISTS:           return ZKELECT_ENODEEXISTS;
    case ZBADVERSION:           return ZKELECT_EBADVERSION;
    case ZNOTEMPTY:             return ZKELECT_ENOTEMPTY;
    case ZBADARGUMENTS:         return ZKELECT_EINVAL;
    case ZCLOSING:              return ZKELECT_ECLOSED;
    case ZSYSTEMERROR:
    case ZMARSHALLINGERROR:
    case ZRUNTIMEINCONSISTENCY:
    default:                    return ZKELECT_EZOOKEEPER;
    }
}

/* True for results meaning "the write may or may not have happened". */
int
zkerr_outcome_unknown(int rc)
{
    return rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT;
}
