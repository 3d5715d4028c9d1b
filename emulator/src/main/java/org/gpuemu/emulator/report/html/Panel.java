package org.gpuemu.emulator.report.html;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One chart of the report: its group heading, title, the sentence under it (what the data is and where it comes
 * from) and the ECharts option that draws it, data included.
 */
record Panel(String id, String group, String title, String caption, ObjectNode option) {}
