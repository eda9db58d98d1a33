/* The landlock-helper's bytes, embedded at build time (see sandbox_linux.c). */
	.section .rodata.helper,"a"
	.balign 16
	.globl helper_bin
helper_bin:
	.incbin HELPER_PATH
	.globl helper_bin_end
helper_bin_end:
	.section .note.GNU-stack,"",@progbits
