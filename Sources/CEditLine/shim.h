#ifndef CLUP_CEDITLINE_SHIM_H
#define CLUP_CEDITLINE_SHIM_H
/* libedit's readline interface, for clupctl's shell. libedit keeps its settings in C
   globals, which Swift 6 will not touch (they are not concurrency-safe): they are set and
   read here. */
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <editline/readline.h>

typedef char **clup_completer_t(const char *text, int start, int end);

/* Ctrl-C at the prompt abandons the line being typed, as in bash: the handler notes it,
   the read it interrupts hands libedit ^U (kill the whole line) then Enter, and the shell
   sees an empty line. */
static volatile sig_atomic_t clup_interrupt_pending = 0;
static int clup_interrupted_line = 0;
static int clup_newline_next = 0;

static void clup_on_interrupt(int signal_number) {
    (void)signal_number;
    clup_interrupt_pending = 1;
}

static inline int clup_getc(FILE *stream) {
    if (clup_newline_next) {
        clup_newline_next = 0;
        return '\n';
    }
    for (;;) {
        unsigned char byte;
        ssize_t count = read(fileno(stream), &byte, 1);
        if (count == 1) return byte;
        if (count == 0) return EOF;
        if (errno != EINTR) return EOF;
        if (clup_interrupt_pending) {
            clup_interrupt_pending = 0;
            clup_interrupted_line = 1;
            clup_newline_next = 1;
            return 0x15;
        }
    }
}

/* Whether the last line read was abandoned with Ctrl-C (and forgets it). */
static inline int clup_rl_take_interrupt(void) {
    int was = clup_interrupted_line;
    clup_interrupted_line = 0;
    return was;
}

/* Whether Ctrl-C was pressed while a command ran (and forgets it). */
static inline int clup_take_interrupt_pending(void) {
    int was = clup_interrupt_pending;
    clup_interrupt_pending = 0;
    return was;
}

/* Catches Ctrl-C for the shell's whole life (no SA_RESTART: a read is interrupted). */
static inline void clup_catch_interrupt(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = clup_on_interrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
}

/* Sets libedit up for clupctl: its name (for ~/.editrc), what ends a word, the completer,
   and the Ctrl-C handling above. */
static inline int clup_rl_setup(clup_completer_t *completer) {
    setlocale(LC_CTYPE, "");
    rl_readline_name = "clupctl";
    rl_basic_word_break_characters = " \t\n\"'";
    rl_attempted_completion_function = completer;
    rl_completion_append_character = ' ';
    rl_completion_query_items = 200;
    rl_getc_function = clup_getc;
    int status = rl_initialize();
    using_history();
    return status;
}

/* From the completer: no file names when it has nothing to offer. */
static inline void clup_rl_completion_over(void) { rl_attempted_completion_over = 1; }
/* The whole line being edited, for the completer. */
static inline const char *clup_rl_line_buffer(void) { return rl_line_buffer; }
#endif
