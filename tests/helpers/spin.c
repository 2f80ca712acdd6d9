// SPDX-License-Identifier: GPL-2.0
/* spin - burn CPU until killed: a task whose placement the tests control */
int main(void)
{
	volatile unsigned long n = 0;

	for (;;)
		n++;
}
