/**
 * Scenario configuration: HOCON files read once, validated against the defaults in {@code reference.conf}
 * (unknown keys, wrong types and out-of-range values are reported with their full path, all at once), and turned
 * into typed settings records before any actor starts. Actors and policies never see a {@code Config}.
 */
package org.gpuemu.emulator.config;
