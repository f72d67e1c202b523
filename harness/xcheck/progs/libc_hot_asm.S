/* SPDX-License-Identifier: GPL-2.0 */
/*
 * long xc_asm_sum(const long *v, size_t n): a leaf loop with CFI (libdw
 * can unwind it) but, assembled without --gsframe, no SFrame data.
 */
	.text
	.globl	xc_asm_sum
	.type	xc_asm_sum, %function
xc_asm_sum:
	.cfi_startproc
#if defined(__x86_64__)
	xorl	%eax, %eax
	testq	%rsi, %rsi
	je	2f
1:	addq	(%rdi), %rax
	addq	$8, %rdi
	decq	%rsi
	jne	1b
2:	ret
#elif defined(__aarch64__)
	mov	x2, #0
	cbz	x1, 2f
1:	ldr	x3, [x0], #8
	add	x2, x2, x3
	subs	x1, x1, #1
	b.ne	1b
2:	mov	x0, x2
	ret
#else
#error "x86_64 or aarch64 only"
#endif
	.cfi_endproc
	.size	xc_asm_sum, . - xc_asm_sum
	.section .note.GNU-stack, "", %progbits
