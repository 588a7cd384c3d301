/**
 * The built-in memory presets: each module exports its definition and this list holds them, one
 * line each, in the order the UI lists them. Importing this module registers them in the memory
 * registry (src-main/core/memory/registry.ts); run entry points import it, library code does not.
 */
import { registerMemoryPreset, type MemoryPresetDefinition } from '../registry';
import { designedPresetDefinition } from './designed';
import { externalPresetDefinition } from './external';
import { graphPresetDefinition } from './graph';
import { hybridContextPresetDefinition, hybridPresetDefinition } from './hybrid';
import { locomoRagPresetDefinitions } from './locomo-rag';
import { mem0PresetDefinition } from './mem0';
import { mem0RagPresetDefinition } from './mem0-rag';
import { memoryosPresetDefinition } from './memoryos';
import { stmPresetDefinition } from './stm';
import { textPresetDefinition } from './text';
import { tiersPresetDefinition } from './tiers';
import { vectorPresetDefinition } from './vector';

export const BUILTIN_MEMORY_PRESETS: readonly MemoryPresetDefinition[] = [
  // Turn retrieval (one collection item per turn): vector, text, hybrid and hybrid-context (the
  // default).
  vectorPresetDefinition,
  textPresetDefinition,
  hybridPresetDefinition,
  // hybrid with context in its BM25 documents and session scores (docs/benchmarks.md).
  hybridContextPresetDefinition,
  // Structured presets (see each file's header): a fifo window, MemoryOS-style short/mid-term,
  // tiered memory with migration, and a turn graph.
  stmPresetDefinition,
  memoryosPresetDefinition,
  tiersPresetDefinition,
  graphPresetDefinition,
  // A collection design from the Collections view (core/designs), run as it runs in the playground.
  designedPresetDefinition,
  // A memory service in another process, over the memory protocol (docs/memory-protocol.md).
  externalPresetDefinition,
  // LoCoMo's RAG baselines: its dialog, observation and session-summary databases.
  ...locomoRagPresetDefinitions,
  // Mem0's chunked-RAG baseline (mem0 evaluation/src/rag.py).
  mem0RagPresetDefinition,
  // Mem0 itself: the released mem0ai/oss library, loaded only in the experiment worker.
  mem0PresetDefinition,
];

for (const preset of BUILTIN_MEMORY_PRESETS) registerMemoryPreset(preset);
