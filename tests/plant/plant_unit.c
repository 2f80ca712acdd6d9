// SPDX-License-Identifier: GPL-2.0
/*
 * plant_unit - cmocka binaries with a planted fault, for tests/plant.sh:
 * built with -DPLANT_SKIP a case skips itself; with -DPLANT_CRASH a case
 * kills the process part-way, where cmocka cannot catch it.  The harness
 * must show the first as a SKIP line and the second as a FAIL line.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

static void fine(void **state)
{
	assert_int_equal(2 + 2, 4);
}

static void planted(void **state)
{
#ifdef PLANT_SKIP
	skip();
#endif
#ifdef PLANT_CRASH
	raise(SIGKILL);
#endif
}

static void after(void **state)
{
	assert_true(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fine),
		cmocka_unit_test(planted),
		cmocka_unit_test(after),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
