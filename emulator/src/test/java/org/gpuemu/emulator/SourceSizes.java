package org.gpuemu.emulator;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.LineMap;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.lang.model.element.Modifier;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * The source size goals and the scan that measures them with the JDK's own parser (syntax only, no compilation):
 * a file's lines, a method's or constructor's lines from its first modifier to its closing brace, and the parameters
 * of every constructor and static method. {@link #ALLOWED} names the offenders not yet split, each with its present
 * size as a ceiling; {@code LayeringTest} holds both.
 */
final class SourceSizes {

  static final int MAX_FILE_LINES = 450;
  static final int MAX_METHOD_LINES = 60;
  static final int MAX_PARAMETERS = 6;

  /** The offenders left, key as {@link #offenders} names it, value its size today: only ever removed or lowered. */
  static final Map<String, Integer> ALLOWED = allowed();

  private SourceSizes() {}

  private static Map<String, Integer> allowed(Object... keysAndSizes) {
    Map<String, Integer> map = new TreeMap<>();
    for (int i = 0; i < keysAndSizes.length; i += 2) map.put((String) keysAndSizes[i], (Integer) keysAndSizes[i + 1]);
    return map;
  }

  /**
   * Every offender under the source roots, keyed {@code file <path>}, {@code method <path> <Class.method>} or
   * {@code parameters <path> <Class.method>/<count>} (the path below {@code org/gpuemu}), valued by its size.
   */
  static Map<String, Integer> offenders(List<Path> roots) throws IOException {
    List<Path> files = new ArrayList<>();
    for (Path root : roots) {
      try (Stream<Path> walk = Files.walk(root)) {
        walk.filter(p -> p.toString().endsWith(".java")).sorted().forEach(files::add);
      }
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    Map<String, Integer> found = new TreeMap<>();
    try (StandardJavaFileManager fm = javac.getStandardFileManager(null, null, null)) {
      JavacTask task = (JavacTask) javac.getTask(null, fm, null, List.of("-proc:none"), null,
          fm.getJavaFileObjectsFromPaths(files));
      SourcePositions positions = Trees.instance(task).getSourcePositions();
      for (CompilationUnitTree unit : task.parse()) {
        Path file = Path.of(unit.getSourceFile().toUri());
        String name = file.toString().replace('\\', '/').replaceFirst(".*/org/gpuemu/", "");
        int lines = Files.readAllLines(file).size();
        if (lines > MAX_FILE_LINES) found.put("file " + name, lines);
        new Scanner(unit, positions, name, found).scan(unit, null);
      }
    }
    return found;
  }

  private static final class Scanner extends TreePathScanner<Void, Void> {
    private final CompilationUnitTree unit;
    private final SourcePositions positions;
    private final String name;
    private final Map<String, Integer> found;

    Scanner(CompilationUnitTree unit, SourcePositions positions, String name, Map<String, Integer> found) {
      this.unit = unit;
      this.positions = positions;
      this.name = name;
      this.found = found;
    }

    @Override
    public Void visitMethod(MethodTree method, Void unused) {
      String owner = owner(getCurrentPath());
      String member = owner + "." + method.getName();
      if (method.getBody() != null) {
        LineMap map = unit.getLineMap();
        long lines = map.getLineNumber(positions.getEndPosition(unit, method))
            - map.getLineNumber(positions.getStartPosition(unit, method)) + 1;
        if (lines > MAX_METHOD_LINES) found.merge("method " + name + " " + member, (int) lines, Math::max);
      }
      boolean constructor = method.getName().contentEquals("<init>");
      boolean factory = method.getModifiers().getFlags().contains(Modifier.STATIC);
      int parameters = method.getParameters().size();
      if ((constructor || factory) && parameters > MAX_PARAMETERS && !canonical(method)) {
        found.put("parameters " + name + " " + member + "/" + parameters, parameters);
      }
      return super.visitMethod(method, unused);
    }

    /** A record's canonical constructor (compact or written out): its parameters are the record's components. */
    private boolean canonical(MethodTree method) {
      if (!method.getName().contentEquals("<init>")) return false;
      Tree parent = getCurrentPath().getParentPath().getLeaf();
      if (!(parent instanceof ClassTree record) || record.getKind() != Tree.Kind.RECORD) return false;
      List<String> components = new ArrayList<>();
      for (Tree member : record.getMembers()) {
        if (member instanceof VariableTree field && !field.getModifiers().getFlags().contains(Modifier.STATIC)) {
          components.add(field.getName().toString());
        }
      }
      return method.getParameters().stream().map(p -> p.getName().toString()).toList().equals(components);
    }

    private static String owner(TreePath path) {
      List<String> names = new ArrayList<>();
      for (TreePath p = path; p != null; p = p.getParentPath()) {
        if (p.getLeaf() instanceof ClassTree c && !c.getSimpleName().isEmpty()) {
          names.add(0, c.getSimpleName().toString());
        }
      }
      return String.join(".", names);
    }
  }
}
