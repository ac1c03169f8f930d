/*
 * cutest.h - the one CUnit runner every test program uses.
 *
 *   static CU_TestInfo codec_tests[] = { {"name", fn}, CU_TEST_INFO_NULL };
 *   static CU_SuiteInfo suites[] = { {"codec", NULL, NULL, NULL, NULL, codec_tests},
 *                                    CU_SUITE_INFO_NULL };
 *   int main(int argc, char **argv) { return cutest_main(argc, argv, suites); }
 *
 * It runs every suite (or the ones named on the command line), prints CUnit's
 * run summary and then the line "NAME: N passed, N failed" that tests/summary.sh
 * adds up. Exit status: 0 when nothing failed, 1 otherwise (99 on a setup error).
 */
#ifndef ZKELECT_CUTEST_H
#define ZKELECT_CUTEST_H

#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

static inline int
cutest_main(int argc, char **argv, CU_SuiteInfo *suites)
{
    const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    unsigned passed, failed, sum_run = 0, sum_failed = 0;
    int i;

    if (CU_initialize_registry() != CUE_SUCCESS)
        return 99;
    if (CU_register_suites(suites) != CUE_SUCCESS) {
        fprintf(stderr, "%s: %s\n", name, CU_get_error_msg());
        CU_cleanup_registry();
        return 99;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    if (argc > 1) {
        /* arguments: SUITE, or SUITE:TEST-NAME-PREFIX to run one test */
        for (i = 1; i < argc; i++) {
            char sname[256];
            const char *colon = strchr(argv[i], ':');
            size_t n = colon ? (size_t)(colon - argv[i]) : strlen(argv[i]);
            CU_pSuite s;
            CU_pTest t = NULL;
            snprintf(sname, sizeof(sname), "%.*s", (int)n, argv[i]);
            s = CU_get_suite(sname);
            if (s && colon)
                for (t = s->pTest; t && strncmp(t->pName, colon + 1, strlen(colon + 1)) != 0; t = t->pNext)
                    ;
            if (s == NULL || (colon && t == NULL)) {
                fprintf(stderr, "%s: no suite or test named '%s'\n", name, argv[i]);
                CU_cleanup_registry();
                return 99;
            }
            if (t)
                CU_basic_run_test(s, t);
            else
                CU_basic_run_suite(s);
            /* each run resets CUnit's counters: add them up */
            sum_failed += CU_get_number_of_tests_failed() + CU_get_number_of_suites_failed();
            sum_run += CU_get_number_of_tests_run();
        }
        passed = sum_run >= sum_failed ? sum_run - sum_failed : 0;
        printf("\n%s: %u passed, %u failed\n", name, passed, sum_failed);
        CU_cleanup_registry();
        return sum_failed == 0 ? 0 : 1;
    } else {
        CU_basic_run_tests();
    }
    failed = CU_get_number_of_tests_failed();
    passed = CU_get_number_of_tests_run() - failed;
    if (CU_get_number_of_suites_failed() > 0)
        failed += CU_get_number_of_suites_failed();
    printf("\n%s: %u passed, %u failed\n", name, passed, failed);
    CU_cleanup_registry();
    return failed == 0 ? 0 : 1;
}

#endif
