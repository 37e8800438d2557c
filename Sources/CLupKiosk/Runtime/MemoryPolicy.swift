import CMalloc

/// How clupd asks glibc's malloc to keep its memory small (`scripts/bench` reports the
/// resident size after a run of tickets).
///
/// A screen frame is 3.5 MB (720 × 1280 × 4 bytes), drawn on a worker thread for every screen
/// change. By default glibc gives each thread a malloc arena of its own, and after the first
/// frame is freed it raises its mmap threshold above a frame's size, so later frames come
/// from the arenas and stay resident once freed: 15 MB more after 100 tickets.
public enum MemoryPolicy {
    /// Call once, before any thread starts.
    public static func apply() {
        // Two arenas for the loop and its workers.
        _ = mallopt(M_ARENA_MAX, 2)
        // A fixed threshold (which also stops glibc raising it): blocks of 256 KiB and more,
        // frames and PNG buffers, are mapped on their own and given back when freed.
        _ = mallopt(M_MMAP_THRESHOLD, 256 * 1024)
    }
}
