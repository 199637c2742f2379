// Child process for the ONNX telemetry test: loads a tiny model through scry's ONNX embedder and
// embeds one text, so that onnxruntime-node is loaded the way scry loads it (argv[2]: model dir).
import { createOnnxEmbedder } from '../../src/embed/onnx-embedder.js';

const provider = createOnnxEmbedder({ modelDir: process.argv[2]!, modelsDir: '/nonexistent-models', maxLength: 64, pooling: 'mean', queryPrefix: '', documentPrefix: '', batchSize: 8 });
const [vector] = await provider.embed(['zebra']);
await provider.close();
process.stdout.write(`${JSON.stringify({ dimensions: vector?.length ?? 0 })}\n`);
