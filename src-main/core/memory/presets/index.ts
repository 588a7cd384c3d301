/**
 * Built-in memory presets. Importing this module registers each of them in the memory registry
 * (src-main/core/memory/registry.ts); run entry points import it, library code does not.
 *
 * Turn-retrieval presets (one collection item per turn): vector, text and hybrid (the default).
 */
import './vector';
import './text';
import './hybrid';
// Structured presets (see each file's header): a fifo window, MemoryOS-style short/mid-term,
// tiered memory with migration, and a turn graph.
import './stm';
import './memoryos';
import './tiers';
import './graph';
// A collection design from the Collections view (core/designs), run as it runs in the playground.
import './designed';
// A memory service in another process, over the memory protocol (docs/memory-protocol.md).
import './external';
// LoCoMo's RAG baselines: its dialog, observation and session-summary databases.
import './locomo-rag';
// Mem0's chunked-RAG baseline (mem0 evaluation/src/rag.py).
import './mem0-rag';
// Mem0 itself: the released mem0ai/oss library, loaded only in the experiment worker.
import './mem0';
