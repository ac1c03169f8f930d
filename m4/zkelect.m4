# zkelect.m4 - dependency checks whose failure names the Debian package to install.

# ZKELECT_CHECK_HEADER_LIB(HEADER, LIB, FUNC, DEBIAN-PKG, VAR, EXTRA-CPPFLAGS)
# Checks for a header and a library without pkg-config; sets VAR_CFLAGS / VAR_LIBS.
AC_DEFUN([ZKELECT_CHECK_HEADER_LIB], [
    zk_save_CPPFLAGS=$CPPFLAGS
    zk_save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $6"
    AC_CHECK_HEADER([$1], [],
        [AC_MSG_ERROR([$1 not found: install the Debian package $4 (apt-get install $4)])])
    LIBS=""
    AC_CHECK_LIB([$2], [$3], [],
        [AC_MSG_ERROR([lib$2 not found: install the Debian package $4 (apt-get install $4)])])
    AC_SUBST([$5_CFLAGS], ["$6"])
    AC_SUBST([$5_LIBS], ["-l$2"])
    CPPFLAGS=$zk_save_CPPFLAGS
    LIBS=$zk_save_LIBS
])

# ZKELECT_CHECK_PKG(VAR, PKGCONFIG-NAME, DEBIAN-PKG)
AC_DEFUN([ZKELECT_CHECK_PKG], [
    PKG_CHECK_MODULES([$1], [$2], [],
        [AC_MSG_ERROR([$2 not found by pkg-config: install the Debian package $3 (apt-get install $3)])])
])

# AX_PTHREAD_SIMPLE: glibc >= 2.34 needs nothing, older ones -pthread.
AC_DEFUN([AX_PTHREAD_SIMPLE], [
    AC_SEARCH_LIBS([pthread_create], [pthread], [],
        [AC_MSG_ERROR([POSIX threads not found])])
])
