// Package ollamatest owns what pi's end-to-end tests need to talk to a real Ollama server: a
// generator for tiny deterministic "scripted" GGUF models with their chat template, one for
// random-weight models of a real model's shape (to measure speed, not answers), a helper
// that starts and stops an Ollama server on loopback for one test, and model creation through
// Ollama's HTTP API.
//
// The generated model is a real llama-architecture network whose attention and feed-forward
// weights are all zero, so each next token depends only on the current one: a bigram table. The
// chat template picks a script by looking at the conversation (see Rule) and ends the prompt with
// that script's marker token; the table then spells the script's reply, token by token, at any
// temperature.
//
// It uses the standard library only and must not import other packages of this module: the
// tests of the adapters and of the program import it, never the other way round. It never
// downloads anything, binds only to 127.0.0.1, and stops only the processes it started.
package ollamatest
