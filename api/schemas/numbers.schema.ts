// The bounds live with core's own schemas (operation bodies are declared by their operation type, in core).
export * from '../../core/schemas/numbers.schema.js'
