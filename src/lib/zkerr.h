/* zkerr.h - internal: ZooKeeper return codes to ZKELECT_E* (src/lib/error.c). */
#ifndef ZKELECT_ZKERR_H
#define ZKELECT_ZKERR_H

/* Map a ZooKeeper ZOK/Z* return code to 0 or a negative ZKELECT_E* code. */
int zkerr_from_zk(int rc);

/* Non-zero for ZCONNECTIONLOSS and ZOPERATIONTIMEOUT: a write's outcome is unknown. */
int zkerr_outcome_unknown(int rc);

#endif
