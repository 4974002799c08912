/// Real English words that a repair would otherwise read as a lexicon word: one letter
/// away from one ("rash" is not "trash"), or two list words glued ("therapist"). These are
/// the words of Debian's wamerican-large list (/usr/share/dict/american-english-large) that
/// `ModerationLexicon.repaired` changes without them; ModerationLexiconTests checks the list
/// is complete whenever that file is installed, and names any word to add.
enum ModerationLexiconKnownWords {
    static let words: [String] = """
        abby ablest academic acre africa afterword afterwords ages allaying allegro alludes amassed ambo ambos
        america american americano anima animas anna anythings aped apelike apeman apemen aping apse aras arbs
        arched ares artist arts asia athlete awfullest babysits backbeat backcourt backhoe backhoes backs
        backstabbing backswords backwaters baker bakes banaras banares banditry bandog bandore banging banishing
        banker bantings bast beaked beakers beating beats best bests bestselling beta bighorn bigshot bind biol
        blackburn blackcock blackened blackhearts blackout blacksnake blackwell blindstory blood bloodshot bobs
        bombe bombsite boob boos bred brede bree brunt bunt burnishing burnout burnsian burt byword bywords cal
        caldron callback callbacks callboy callus callused camelback candiot caner canted canting canucks
        capitalist carp catholicon centrist chid chin chines chinooks chins churchwoman churchwomen citizen clam
        clambered clams cnut cocksure cockup comebacks commentates commentating communist con congas conn conns
        conquer conquers cons consequence conservative consult consultant consults contemp contemplation
        contemplations contras cooncan coos corn countrywoman countrywomen courtroom crapshoot crapy creature
        cree crepe crim crimean cruellest curt curtsying cutback cutbacks cutin cutis cutlet cutlets cutoff
        cutout cuts cutthroat cutthroats cuttings cutup cyclist deadbeat deadbeats deadened deadlocked deafened
        deathday deathlike depot dickerson dickson dieback diebacks diego disable doctor doctorates dogears
        dogging doggo doggone doglike donor downbeat downbeats downed dowries droned dumbwaiter dumbwaiters dyes
        ears east easts eaten economist either ells ember embers eradiate evildoing evillest evulsion executive
        exist exists fagging fagin fagot fagots forager forages foraying forehead foreigner forests fortran
        freakout garage garbageman gardener gascon gasman gasmen genital givebacks goblin god godawful goddam
        gong greed gros hall hame hangdog hangman hangmen hangout hangover hangup hared hastings hated hats
        heaped heaping hearse hearts heating herat heredity herrick highbred hings hits hoedown homoerotic
        homophobe homs hooke hoot hooting horn hornworts hose hough howells hows hungover hurst huts icons ills
        inaner inbred inbreed inbreeding inconsequence inconsequences india indianan indie indiscrimination
        indue indues inexecution inked inset insets instatement insult intrans intreat invader invades islamist
        itch itches iterated iterating ives jailor jerkin jewelled jewelling jihad jihads justinian kiddie lace
        lack lacks lairs landlord lars lathe lathing latin latins laughter lawyer layers lech leches lest
        lettings lever liar lias liberal lied lief lies lifeblood lind lindsay liras loath lobbyist locke
        longhorn lose loses lovesick manager manages mangers manifest manifestation manifesting manslaughter
        mantels mantras marche mart mater maters matte matterhorn mattes meager meaner medick menages meriting
        minelayers minos misguide moderate money moneys moneyworts mons monsoons monster moon moons moonshot
        moonworts moreno morn morns moro moroni motherfucking motherwort motherworts muts mylars nazi ned negros
        neighbor nero nether nevermore niger nohow nomen nonego nonesuch noplace norfolk norgay norite norman
        northing norway norwich notates notating nothings noting notus nought noway nowhere noyes nurse offbeat
        offbeats offcuts offshoot offsite okaying oman omani omen onager onsite orange orangy orates orating
        orth outages outbacks outbreed outhits outpost outposts outrage outruns outshoot outshouted outshouting
        outwore overages overalls overconservative overeaten overhang overhung overkill overliberal overruns
        overshoe overshoot overshooting overshot overstatement overstatements overstuff overviolent overword
        overwrite overwrites overwriting overwritten overwrote pace pakistan pakistani pens peron personages
        personates personating pervert pets pick picks pics pigging piggott piglet piglets pigmy pigpens
        pigswill pilot pis plage plots policeman policemen policewoman policewomen politician poss postboy
        postman postmen postwoman postwomen pots prion pron pronates pronating protester psis pure puss rainless
        rapist rase rash ratan rathe rather ratlike rattans reed reeding reedy refuge refuges resect reset
        resident residents retrad reuse rick ricks rime ripple ripples rite rites roam rodent rom roman romancer
        romanian romano ross rote rotenone runs rust sadat sadi samos sand sandalled sank sayyid schoolgirls
        scientist scummy seeker seism sexpots sextans sham shamed shoeblack shoeblacks shoehorn shoelace shoo
        shooing shootout shotten show showgirls sian sicken sickened sickout sickroom sics site sits smell
        snapback snapshot soaked soakers soaped soaping sobered socage socages somali somethings sonatina
        sonatinas soot soothing sorites sorn sows spacewoman spacewomen spae stabbings stablest stan
        storytelling strange striper sued suffr swam tabbed tabbing tans tarns teacher teaches teats teenage
        tees tel telemark teleport teleportation tellus tels ten tenn tenno tens theban therapist therapists
        thespis thieve thins threatened tings toasty toddle togas topics tough tran transit transits translation
        translations transmigrant transsexual transudes transvalue trashcan treas treat tripper troat troats
        tuff uncleaner underbred undercut undercuts underdog underdogs underhung undershoot undershooting
        undershot understatement understatements underthings underwrite underwrites underwriting underwritten
        underwrote upbeat upbeats upshot urge usages usurious vale vegetarian veil vetoing violet waiter warm
        warms washings wast wastings waters waylayers weaner weer weevil whatnot whatsits wheres whit whitehall
        whitehead whitened whiteout whitespace whitethroat whitethroats whoreson wile wising wite wold womankind
        womanlike womenfolks womenkind wong word wordsworth wore worsened wort writ writeup writs wrongdoing
        wroth yeas younger
        """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
}
