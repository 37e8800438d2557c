// clup-speak: text to speech for clupd, one utterance per run, in a process of its own.
//
// clupd does not link libespeak-ng: espeak-ng brings PulseAudio, libsndfile and five codecs,
// some 3.5 MB of libraries resident for a voice heard a few seconds at a time. clupd runs
// this helper for each utterance instead, and plays what it writes through ALSA itself.
//
// Usage: clup-speak LANGUAGE WORDS_PER_MINUTE < TEXT
// Reads UTF-8 text on standard input (64 KiB at most) and writes, on standard output, "CLUP",
// the sample rate as 4 little-endian bytes, then mono 16-bit little-endian samples.
// Exit status: 0 spoken; 2 usage or text too long (a message on standard error); 3 no
// speech data (its folder on standard error); 4 no voice for LANGUAGE; 5 espeak-ng refused
// the text (its status on standard error); 6 standard output closed.
#include <errno.h>
#include <espeak-ng/speak_lib.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { EXIT_USAGE = 2, EXIT_NO_DATA = 3, EXIT_NO_VOICE = 4, EXIT_REFUSED = 5, EXIT_OUTPUT = 6 };
enum { TEXT_LIMIT = 64 * 1024, LANGUAGE_LIMIT = 64 };

static int output_failed;

static int write_all(const void *bytes, size_t count) {
    const char *next = bytes;
    while (count > 0) {
        ssize_t written = write(STDOUT_FILENO, next, count);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return -1;
        next += written;
        count -= (size_t)written;
    }
    return 0;
}

// espeak-ng's synth callback: each piece of audio as it is made. Non-zero stops it.
static int collect(short *samples, int count, espeak_EVENT *events) {
    (void)events;
    if (samples != NULL && count > 0 && !output_failed) {
        // x86_64 and arm64 are little-endian: the samples go out as they are.
        if (write_all(samples, (size_t)count * sizeof(short)) != 0) output_failed = 1;
    }
    return output_failed;
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    char *end = NULL;
    long words = argc == 3 ? strtol(argv[2], &end, 10) : 0;
    if (argc != 3 || argv[1][0] == '\0' || strlen(argv[1]) > LANGUAGE_LIMIT || end == argv[2] || *end != '\0'
        || words < 80 || words > 450) {
        fprintf(stderr, "usage: clup-speak LANGUAGE WORDS_PER_MINUTE(80-450) < TEXT\n");
        return EXIT_USAGE;
    }
    static char text[TEXT_LIMIT + 1];
    size_t length = 0;
    for (;;) {
        ssize_t got = read(STDIN_FILENO, text + length, sizeof text - length);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            fprintf(stderr, "cannot read the text: %s\n", strerror(errno));
            return EXIT_USAGE;
        }
        if (got == 0) break;
        length += (size_t)got;
        if (length > TEXT_LIMIT) {
            fprintf(stderr, "the text is longer than %d bytes\n", TEXT_LIMIT);
            return EXIT_USAGE;
        }
    }
    text[length] = '\0';

    // Without DONT_EXIT espeak-ng calls exit(1) when its data is missing; with it, it returns
    // a sample rate of 0 (seen with 1.51).
    int rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, NULL, espeakINITIALIZE_DONT_EXIT);
    if (rate <= 0) {
        const char *path = NULL;
        espeak_Info(&path);
        fprintf(stderr, "%s\n", path != NULL ? path : "its default directory");
        return EXIT_NO_DATA;
    }
    espeak_VOICE criteria;
    memset(&criteria, 0, sizeof criteria);
    criteria.languages = argv[1];
    if (espeak_SetVoiceByProperties(&criteria) != EE_OK) return EXIT_NO_VOICE;
    espeak_SetParameter(espeakRATE, (int)words, 0);
    espeak_SetSynthCallback(collect);

    unsigned char header[8] = {'C', 'L', 'U', 'P', (unsigned char)rate, (unsigned char)(rate >> 8),
                               (unsigned char)(rate >> 16), (unsigned char)(rate >> 24)};
    if (write_all(header, sizeof header) != 0) return EXIT_OUTPUT;
    espeak_ERROR status = espeak_Synth(text, length + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8, NULL, NULL);
    if (output_failed) return EXIT_OUTPUT;
    if (status != EE_OK) {
        fprintf(stderr, "%d\n", (int)status);
        return EXIT_REFUSED;
    }
    espeak_Terminate();
    return 0;
}
