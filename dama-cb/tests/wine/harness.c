/* The Wine harness of dama-cb: loads the engine DLL as CheckerBoard does (LoadLibrary,
 * GetProcAddress of enginecommand, getmove, islegal, enginename), asks what CheckerBoard asks,
 * feeds it the boards that must not crash it, and plays whole games of the engine against
 * itself under CheckerBoard's time settings (per-move, exact, incremental). Every returned
 * move is checked against the returned board, and the games are written as PDN with full
 * capture paths, for the native `dama pdn check` to verify move by move.
 *
 * Usage: harness.exe DLL GAMES PDN_OUT
 * Prints one line per check and a closing "N passed, N failed"; exits 1 on any failure. */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CB_WHITE 1
#define CB_BLACK 2
#define CB_MAN 4
#define CB_KING 8
#define CB_RESET_MOVES 1
#define CB_EXACT_TIME 2
#define CB_INCR_TIME_SHIFT 2

struct coor {
    int x;
    int y;
};

struct CBmove {
    int jumps;
    int newpiece;
    int oldpiece;
    struct coor from;
    struct coor to;
    struct coor path[12];
    struct coor del[12];
    int delpiece[12];
};

typedef int Board[8][8];
typedef int(WINAPI *GetMove)(Board, int, double, char *, int *, int, int, struct CBmove *);
typedef int(WINAPI *EngineCommand)(const char *, char *);
typedef int(WINAPI *IsLegal)(Board, int, int, int, struct CBmove *);
typedef int(WINAPI *EngineName)(char *);

static GetMove getmove;
static EngineCommand enginecommand;
static IsLegal islegal;
static EngineName enginename;
static int passed, failed;
static char dll_dir[MAX_PATH];

static void check(int ok, const char *what, const char *detail)
{
    if (ok) {
        passed++;
        printf("ok   %s\n", what);
    } else {
        failed++;
        printf("FAIL %s: %s\n", what, detail);
    }
    fflush(stdout);
}

/* Italian numbering (CheckerBoard's GT_ITALIAN). */
static int square_number(struct coor c) { return 1 + 4 * c.y + c.x / 2; }

static void square_coords(int n, int *x, int *y)
{
    n -= 1;
    *y = n / 4;
    *x = 2 * (n % 4) + (*y & 1);
}

static void start_board(Board b)
{
    memset(b, 0, sizeof(Board));
    for (int n = 1; n <= 12; n++) {
        int x, y;
        square_coords(n, &x, &y);
        b[x][y] = CB_BLACK | CB_MAN;
        square_coords(n + 20, &x, &y);
        b[x][y] = CB_WHITE | CB_MAN;
    }
}

static void board_fen(Board b, int color, char *out)
{
    int len = sprintf(out, "%c", color == CB_WHITE ? 'W' : 'B');
    int sides[2] = {CB_WHITE, CB_BLACK};
    for (int s = 0; s < 2; s++) {
        len += sprintf(out + len, ":%c", sides[s] == CB_WHITE ? 'W' : 'B');
        int first = 1;
        for (int n = 1; n <= 32; n++) {
            int x, y;
            square_coords(n, &x, &y);
            if (b[x][y] & sides[s]) {
                len += sprintf(out + len, "%s%s%d", first ? "" : ",", (b[x][y] & CB_KING) ? "K" : "", n);
                first = 0;
            }
        }
    }
}

static int command(const char *text, char *reply)
{
    memset(reply, 0, 1024);
    return enginecommand(text, reply);
}

static void identity_checks(void)
{
    char reply[1024];
    char name[255] = "";
    int r = command("name", reply);
    printf("     engine name: %s\n", reply);
    check(r == 1 && strncmp(reply, "dama", 4) == 0, "name", reply);
    r = command("get gametype", reply);
    check(r == 1 && strcmp(reply, "22") == 0, "get gametype is 22 (Italian)", reply);
    r = command("get protocolversion", reply);
    check(r == 1 && strcmp(reply, "2") == 0, "get protocolversion is 2", reply);
    r = command("get movelist B:W1:B", reply);
    check(r == 1 && strcmp(reply, "movelist 0") == 0, "get movelist probe", reply);
    r = command("about", reply);
    check(r == 1 && strlen(reply) > 0, "about", reply);
    r = command("help", reply);
    check(strlen(reply) > 0, "help answers", reply);
    r = command("launch the rockets", reply);
    check(r == 0 && strstr(reply, "unknown command") != NULL, "unknown command refused", reply);
    r = command("set hashsize 16", reply);
    check(r == 1, "set hashsize 16", reply);
    r = command("set hashsize 99999999", reply);
    check(r == 0, "set hashsize too large refused", reply);
    r = command("get book", reply);
    check(r == 1, "get book", reply);
    r = command("set book 1", reply);
    check(r == 1, "set book 1", reply);
    r = command("set level nonsense", reply);
    check(r == 0 && strlen(reply) > 0, "set level nonsense refused", reply);
    r = command("selftest panic", reply);
    check(r == 0 && strstr(reply, "internal error") != NULL, "a panic is caught at the boundary",
          reply);
    r = command("get gametype", reply);
    check(r == 1 && strcmp(reply, "22") == 0, "the engine answers after a panic", reply);
    r = command("get dbpath", reply);
    check(r == 1 && strstr(reply, dll_dir) == reply && strstr(reply, "dama-egtb") != NULL,
          "endgame tables looked for in dama-egtb beside the DLL", reply);
    {
        char cmd[MAX_PATH + 64];
        sprintf(cmd, "set check_wld_dir %s\\dama-egtb", dll_dir);
        r = command(cmd, reply);
        check(r == 1 && strstr(reply, "files of dama's Italian endgame tables") != NULL,
              "the table files beside the DLL are found", reply);
    }
    r = command("get movelist B:W11,13,19,21:B6,9", reply);
    check(r == 1 && strstr(reply, "2,6,6,9,25,18,13,5,25,21,5;") != NULL
              && strstr(reply, "2,6,6,6,22,15,11,5,22,19,5;") != NULL,
          "get movelist gives the API reference's captures", reply);
    r = enginename(name);
    check(r == 1 && strncmp(name, "dama", 4) == 0, "enginename", name);
}

static int call_getmove(Board b, int color, double t, int info, int moreinfo, int playnow_value,
                        char *status, struct CBmove *m)
{
    int playnow = playnow_value;
    memset(status, 0, 1024);
    memset(m, 0, sizeof(*m));
    return getmove(b, color, t, status, &playnow, info, moreinfo, m);
}

static void robustness_checks(void)
{
    Board b, copy;
    char status[1024];
    struct CBmove m;
    DWORD t0;

    memset(b, 0, sizeof(Board));
    b[0][0] = CB_WHITE | CB_MAN; /* a white man on 1: its own promotion row */
    b[7][7] = CB_BLACK | CB_MAN;
    memcpy(copy, b, sizeof(Board));
    call_getmove(b, CB_WHITE, 1.0, CB_RESET_MOVES, 0, 0, status, &m);
    check(memcmp(b, copy, sizeof(Board)) == 0 && strstr(status, "promotion row") != NULL,
          "man on its promotion row refused, board unchanged", status);

    memset(b, 0, sizeof(Board));
    call_getmove(b, CB_BLACK, 1.0, CB_RESET_MOVES, 0, 0, status, &m);
    check(strstr(status, "no pieces") != NULL, "empty board refused", status);

    start_board(b);
    call_getmove(b, 7, 1.0, 0, 0, 0, status, &m);
    check(strstr(status, "colour 7") != NULL, "unknown colour refused", status);

    memset(b, 0, sizeof(Board));
    b[2][4] = CB_WHITE | CB_MAN; /* 18: White alone, Black to move has nothing */
    call_getmove(b, CB_BLACK, 1.0, CB_RESET_MOVES, 0, 0, status, &m);
    check(strstr(status, "no legal move") != NULL, "no legal move answered", status);

    start_board(b);
    memcpy(copy, b, sizeof(Board));
    call_getmove(b, CB_WHITE, 0.0, CB_RESET_MOVES, 0, 0, status, &m);
    check(memcmp(b, copy, sizeof(Board)) != 0, "zero time still plays a move", status);

    start_board(b);
    memcpy(copy, b, sizeof(Board));
    t0 = GetTickCount();
    call_getmove(b, CB_WHITE, 1e300, CB_RESET_MOVES, 0, 1, status, &m);
    check(memcmp(b, copy, sizeof(Board)) != 0 && GetTickCount() - t0 < 20000,
          "huge time with play-now set returns a move at once", status);

    /* Out of the book, one second, exact: the move comes after about that long. */
    start_board(b);
    b[0][2] = 0; /* square 9 empty: a position the book does not hold */
    b[3][3] = CB_BLACK | CB_MAN; /* on 14 instead */
    t0 = GetTickCount();
    call_getmove(b, CB_WHITE, 1.0, CB_RESET_MOVES | CB_EXACT_TIME, 0, 0, status, &m);
    {
        DWORD spent = GetTickCount() - t0;
        char detail[1200];
        sprintf(detail, "%lu ms; %s", (unsigned long)spent, status);
        check(spent >= 300 && spent <= 3000, "exact time of 1 s kept (0.3 to 3 s)", detail);
        printf("     1 s asked, %lu ms taken: %s\n", (unsigned long)spent, status);
    }

    start_board(b);
    check(islegal(b, CB_WHITE, 22, 18, &m) == 1 && m.jumps == 0, "islegal 22-18", "");
    check(islegal(b, CB_WHITE, 22, 17, &m) == 0, "islegal 22-17 refused", "");
    check(getmove(NULL, CB_WHITE, 1.0, status, NULL, 0, 0, NULL) == 3, "null board answered",
          status);
}

/* Applies m to b as CheckerBoard does with the move struct. */
static void apply(Board b, const struct CBmove *m)
{
    b[m->from.x][m->from.y] = 0;
    for (int i = 0; i < m->jumps && i < 12; i++)
        b[m->del[i].x][m->del[i].y] = 0;
    b[m->to.x][m->to.y] = m->newpiece;
}

static void write_move(FILE *pdn, const struct CBmove *m)
{
    fprintf(pdn, "%d", square_number(m->from));
    if (m->jumps == 0) {
        fprintf(pdn, "-%d", square_number(m->to));
        return;
    }
    for (int i = 1; i <= m->jumps && i < 12; i++)
        fprintf(pdn, "x%d", square_number(m->path[i]));
}

/* One game of the engine against itself; returns the plies played. */
static int play_game(int g, FILE *pdn)
{
    static const char *levels[] = {"max", "normal", "max", "easy"};
    char cmd[512], reply[1024], status[1024], what[128], fen[256];
    Board b, before;
    struct CBmove m;
    int color = CB_WHITE, quiet = 0, ply, ok = 1, mode = g % 4;

    sprintf(cmd, "set level %s", levels[g % 4]);
    command(cmd, reply);
    sprintf(cmd, "set seed %d", g + 1);
    command(cmd, reply);
    start_board(b);
    fprintf(pdn, "[Event \"dama-cb wine harness\"]\n[Round \"%d\"]\n[GameType \"22\"]\n"
                 "[Result \"*\"]\n\n", g + 1);
    for (ply = 0; ply < 400; ply++) {
        int info = ply == 0 ? CB_RESET_MOVES : 0, moreinfo = 0;
        double t = 0.05;
        if (mode == 1)
            info |= CB_EXACT_TIME;
        if (mode == 3) { /* incremental: 20 s left and 0.1 s a move, in 0.01 s units */
            info |= 2 << CB_INCR_TIME_SHIFT;
            moreinfo = (2000 << 16) | 10;
            t = 0.3;
        }
        board_fen(b, color, fen);
        sprintf(cmd, "set gamehist %s", fen);
        command(cmd, reply);
        memcpy(before, b, sizeof(Board));
        call_getmove(b, color, t, info, moreinfo, 0, status, &m);
        if (memcmp(before, b, sizeof(Board)) == 0) {
            if (strstr(status, "no legal move") == NULL) {
                ok = 0;
                printf("     game %d ply %d: no move and no reason: %s\n", g + 1, ply, status);
            }
            break;
        }
        apply(before, &m);
        if (memcmp(before, b, sizeof(Board)) != 0) {
            ok = 0;
            printf("     game %d ply %d: the move struct does not give the board\n", g + 1, ply);
            break;
        }
        if (color == CB_WHITE)
            fprintf(pdn, "%d. ", ply / 2 + 1);
        write_move(pdn, &m);
        fprintf(pdn, (ply % 10 == 9) ? "\n" : " ");
        quiet = (m.jumps > 0 || (m.oldpiece & CB_MAN)) ? 0 : quiet + 1;
        if (quiet >= 80)
            break; /* Italian: 40 moves each without progress is a draw */
        color ^= CB_WHITE | CB_BLACK;
    }
    fprintf(pdn, "*\n\n");
    sprintf(what, "game %d (%s, %s) played, %d plies, every move matching its board", g + 1,
            levels[g % 4], mode == 1 ? "exact time" : mode == 3 ? "incremental" : "per move", ply);
    check(ok && ply > 0, what, status);
    return ply;
}

/* Serve mode, for a driver playing the DLL against another engine: each stdin line
 * "<W|B><32 Hub characters> SECONDS" is a position (Hub's form: w b men, W B kings, e empty,
 * squares 1..32) to play in; the answer is one line, "move FROMxTOxCAPTURED..." (Hub's
 * notation, or FROM-TO) or "none STATUS". A reset is sent with the first position. */
static int serve(void)
{
    char line[256], status[1024];
    int first = 1;
    while (fgets(line, sizeof line, stdin)) {
        Board b;
        struct CBmove m;
        double t = 0.05;
        int color, n;
        if (strlen(line) < 33)
            continue;
        color = line[0] == 'W' ? CB_WHITE : CB_BLACK;
        memset(b, 0, sizeof(Board));
        for (n = 1; n <= 32; n++) {
            int x, y, piece = 0;
            char c = line[n];
            square_coords(n, &x, &y);
            if (c == 'w') piece = CB_WHITE | CB_MAN;
            if (c == 'W') piece = CB_WHITE | CB_KING;
            if (c == 'b') piece = CB_BLACK | CB_MAN;
            if (c == 'B') piece = CB_BLACK | CB_KING;
            b[x][y] = piece;
        }
        sscanf(line + 33, "%lf", &t);
        call_getmove(b, color, t, first ? CB_RESET_MOVES : 0, 0, 0, status, &m);
        first = 0;
        if (m.from.x == m.to.x && m.from.y == m.to.y) {
            printf("none %s\n", status);
        } else if (m.jumps == 0) {
            printf("move %d-%d\n", square_number(m.from), square_number(m.to));
        } else {
            printf("move %dx%d", square_number(m.from), square_number(m.to));
            for (int i = 0; i < m.jumps && i < 12; i++)
                printf("x%d", square_number(m.del[i]));
            printf("\n");
        }
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv)
{
    int serving = argc == 3 && strcmp(argv[2], "--serve") == 0;
    if (argc < 4 && !serving) {
        fprintf(stderr, "usage: harness DLL GAMES PDN_OUT | harness DLL --serve\n");
        return 2;
    }
    HMODULE lib = LoadLibraryA(argv[1]);
    if (!lib) {
        printf("FAIL cannot load %s (error %lu)\n0 passed, 1 failed\n", argv[1], GetLastError());
        return 1;
    }
    GetModuleFileNameA(lib, dll_dir, MAX_PATH);
    if (strrchr(dll_dir, '\\'))
        *strrchr(dll_dir, '\\') = 0;
    enginecommand = (EngineCommand)GetProcAddress(lib, "enginecommand");
    getmove = (GetMove)GetProcAddress(lib, "getmove");
    islegal = (IsLegal)GetProcAddress(lib, "islegal");
    enginename = (EngineName)GetProcAddress(lib, "enginename");
    if (serving)
        return getmove ? serve() : 1;
    check(enginecommand && getmove && islegal && enginename, "exports found", argv[1]);
    if (!(enginecommand && getmove && islegal && enginename)) {
        printf("%d passed, %d failed\n", passed, failed);
        return 1;
    }
    identity_checks();
    robustness_checks();
    FILE *pdn = fopen(argv[3], "w");
    if (!pdn) {
        printf("FAIL cannot write %s\n", argv[3]);
        return 1;
    }
    int games = atoi(argv[2]);
    for (int g = 0; g < games; g++)
        play_game(g, pdn);
    fclose(pdn);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
