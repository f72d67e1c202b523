// SPDX-License-Identifier: GPL-2.0
/* Calls the first of the long functions gen.py chain --pad generates. */
extern void (*const lg_fn[])(volatile char *);

int main(void)
{
	static char c;

	lg_fn[0](&c);
	return c != 1;
}
